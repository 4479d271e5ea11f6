import Nostr

/// Group chats: creating them and changing their members, name and admins (MIP-01/03). The
/// messaging layer enforces who may do what; the core checks the input and reports outcomes.
extension AppCore {
    func createGroup(name: String, memberNpubs: [String]) {
        guard let session else { return }
        guard let members = parseNpubs(memberNpubs, operation: .createGroup, me: session.myPublicKey) else { return }
        guard !members.isEmpty else {
            finish(.createGroup, .invalidNpub, "Add at least one npub to the group")
            return
        }
        guard let service = session.service else {
            finish(.createGroup, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        state.busy.creatingChat = true
        let title = name.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
        let id = session.id
        spawn {
            do {
                let chat = try await service.createGroup(name: title, members: members)
                return .groupOperationFinished(session: id, .createGroup, .success(chat))
            } catch {
                return .groupOperationFinished(session: id, .createGroup, .failure(ServiceError(error)))
            }
        }
    }

    /// A change whose subjects are npubs: parsed (and refused when one does not parse) first.
    func changeGroup(_ chatID: ChatID, npubs: [String], _ make: ([PublicKey]) -> GroupChange) {
        guard session != nil else { return }
        guard let keys = parseNpubs(npubs, operation: .changeGroup, me: nil), !keys.isEmpty else {
            if !npubs.isEmpty { return }
            finish(.changeGroup, .invalidNpub, "Name at least one npub")
            return
        }
        changeGroup(chatID, make(keys))
    }

    func changeGroup(_ chatID: ChatID, _ change: GroupChange) {
        guard let session else { return }
        guard let entry = session.chats[chatID] else {
            finish(.changeGroup, .unknownChat, "Chat not found")
            return
        }
        guard entry.info.isMember else {
            finish(.changeGroup, .notMember, Self.notMember)
            return
        }
        guard let service = session.service else {
            finish(.changeGroup, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        let id = session.id
        spawn {
            do {
                let chat = try await service.changeGroup(chatID, change)
                return .groupOperationFinished(session: id, .changeGroup, .success(chat))
            } catch {
                return .groupOperationFinished(session: id, .changeGroup, .failure(ServiceError(error)))
            }
        }
    }

    func groupOperationFinished(_ operation: UserOperation, _ result: Result<ChatInfo?, ServiceError>) {
        if operation == .createGroup { state.busy.creatingChat = false }
        switch result {
        case .success(let chat):
            // The chat as changed goes in before the outcome, so whoever waits for the outcome
            // reads the new name, members and admins (issue 30).
            if let chat { upsertChat(chat) }
            finish(operation, .ok)
            if let chat, operation == .createGroup { showChat(chat.chatID) }
        case .failure(let error):
            let verb = operation == .createGroup ? "Could not create the group" : "Could not change the group"
            finish(operation, error.code, "\(verb): \(error.reason)")
        }
    }

    /// The keys of `npubs` (trimmed), or nil after recording an `invalid_npub` / `own_npub` outcome.
    private func parseNpubs(_ npubs: [String], operation: UserOperation, me: PublicKey?) -> [PublicKey]? {
        var keys: [PublicKey] = []
        for text in npubs {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let key = try? PublicKey(npub: trimmed) else {
                finish(operation, .invalidNpub, "Invalid npub: \(formatter.shortNpub(trimmed))")
                return nil
            }
            if let me, key == me {
                finish(operation, .ownNpub, "That is your own npub: enter the other people's")
                return nil
            }
            if !keys.contains(key) { keys.append(key) }
        }
        return keys
    }
}
