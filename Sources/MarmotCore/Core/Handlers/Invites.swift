/// Invitations: a chat someone invited us to is joined only when the user accepts it (MIP-02).
extension AppCore {
    /// Accepts or declines a pending invitation; the answer runs off the actor and comes back as
    /// `inviteAnswered`. A second answer while one is in flight is ignored.
    func answerInvite(_ id: InviteID, accept: Bool) {
        guard let session else { return }
        // An invitation from someone blocked is not listed and cannot be accepted (issue 48).
        guard session.invites.contains(where: { $0.inviteID == id && session.blocked[$0.inviter] == nil }) else {
            finish(accept ? .acceptInvite : .declineInvite, .unknownInvite, "That invitation is no longer pending")
            return
        }
        guard !state.busy.answeringInvites.contains(id) else { return }
        guard let service = session.service else {
            finish(accept ? .acceptInvite : .declineInvite, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        state.busy.answeringInvites.insert(id)
        let sessionID = session.id
        spawn {
            do {
                if accept {
                    let chat = try await service.acceptInvite(id)
                    return .inviteAnswered(session: sessionID, id, accepted: true, .success(chat))
                }
                try await service.declineInvite(id)
                return .inviteAnswered(session: sessionID, id, accepted: false, .success(nil))
            } catch {
                return .inviteAnswered(session: sessionID, id, accepted: accept, .failure(ServiceError(error)))
            }
        }
    }

    func inviteAnswered(_ id: InviteID, accepted: Bool, result: Result<ChatInfo?, ServiceError>) {
        state.busy.answeringInvites.remove(id)
        switch result {
        case .success(let chat):
            session?.invites.removeAll { $0.inviteID == id }
            if let chat {
                upsertChat(chat)
                if session?.settledJoins.remove(chat.chatID) == nil { state.busy.finishingJoins.insert(chat.chatID) }
                showChat(chat.chatID)
            }
            finish(accepted ? .acceptInvite : .declineInvite, .ok)
        case .failure(let error):
            fail(
                accepted ? .acceptInvite : .declineInvite, error,
                prefix: accepted ? "Could not join the chat" : "Could not decline")
        }
    }

    /// The messaging layer finished joining `chatID` (history read, key update made or owed). It can
    /// report this before the accept's own answer arrives; then the answer does not mark it.
    func joinSettled(_ chatID: ChatID) {
        if state.busy.finishingJoins.remove(chatID) == nil { session?.settledJoins.insert(chatID) }
    }
}
