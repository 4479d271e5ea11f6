/// This account's profile name (NIP-01 kind 0): set by the user, shown to others.
extension AppCore {
    func setProfileName(_ name: String) {
        guard let session else { return }
        let text = name.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
        guard !text.isEmpty else {
            finish(.setProfileName, .failed, "Enter a name")
            return
        }
        guard let service = session.service else {
            finish(.setProfileName, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        guard !state.profile.saving else { return }
        state.profile.saving = true
        let id = session.id
        spawn {
            do {
                return .profileSaved(session: id, .success(try await service.setProfileName(text)))
            } catch {
                return .profileSaved(session: id, .failure(ServiceError(error)))
            }
        }
    }

    func profileSaved(_ result: Result<String, ServiceError>) {
        state.profile.saving = false
        switch result {
        case .success(let name):
            state.profile.name = name
            finish(.setProfileName, .ok)
        case .failure(let error):
            finish(.setProfileName, error.code, "Could not set the name: \(error.reason)")
        }
    }
}
