import Foundation
import Nostr

/// Mute, archive and block (issue 48): what the user chose about chats and people, applied by the
/// core at once and kept on this device by the messaging layer; nothing is sent to anyone.
extension AppCore {
    // MARK: Mute and archive

    func muteChat(_ chatID: ChatID, duration: MuteDuration) {
        let mute: ChatMute =
            switch duration {
            case .forever: .forever
            case .seconds(0): .off
            case .seconds(let seconds): .until(configuration.clock.unixSeconds() &+ Int64(clamping: seconds))
            }
        changePreferences(chatID, .muteChat) { $0.mute = mute }
    }

    func unmuteChat(_ chatID: ChatID) { changePreferences(chatID, .unmuteChat) { $0.mute = .off } }
    func archiveChat(_ chatID: ChatID) {
        let now = configuration.clock.unixSeconds()
        changePreferences(chatID, .archiveChat) { if $0.archivedAt == nil { $0.archivedAt = now } }
    }

    func unarchiveChat(_ chatID: ChatID) { changePreferences(chatID, .unarchiveChat) { $0.archivedAt = nil } }

    /// Applies `change` to a chat's preferences and keeps them; the outcome follows once they are kept.
    private func changePreferences(_ chatID: ChatID, _ operation: UserOperation, _ change: (inout ChatPreferences) -> Void) {
        guard let session else { return }
        guard var entry = session.chats[chatID], !session.isBlockedDirect(entry) else {
            finish(operation, .unknownChat, "Chat not found")
            return
        }
        guard let service = session.service else {
            finish(operation, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        let previous = entry.info.preferences
        change(&entry.info.preferences)
        session.chats[chatID] = entry
        keepPreferences(chatID, entry.info.preferences, previous: previous, operation: operation, service: service, session: session)
    }

    /// Hands a chat's preferences to the messaging layer; `operation` nil for a change the core made
    /// itself (an archived chat coming back), which records no outcome.
    func keepPreferences(
        _ chatID: ChatID, _ preferences: ChatPreferences, previous: ChatPreferences, operation: UserOperation?,
        service: any MessagingService, session: Session
    ) {
        let id = session.id
        let reported = operation ?? .messaging
        let automatic = operation == nil
        let logger = self.logger
        spawn {
            do {
                try await service.setChatPreferences(preferences, chatID: chatID)
                return automatic ? nil : .preferencesSaved(session: id, chatID: chatID, reported, previous: previous, .success(()))
            } catch {
                if automatic {
                    logger.warning("keeping chat preferences failed", metadata: ["chat": "\(chatID)"])
                    return nil
                }
                return .preferencesSaved(session: id, chatID: chatID, reported, previous: previous, .failure(ServiceError(error)))
            }
        }
    }

    func preferencesSaved(_ chatID: ChatID, _ operation: UserOperation, previous: ChatPreferences, _ result: Result<Void, ServiceError>) {
        switch result {
        case .success:
            finish(operation, .ok)
        case .failure(let error):
            session?.chats[chatID]?.info.preferences = previous
            fail(operation, error, prefix: "Could not change the chat")
        }
    }

    /// A new message that counts as unread arrived (live, or stored unread while the app was closed
    /// and written after the chat was archived: `writtenAt`): an archived chat that is not muted
    /// comes back to the chat list (issue 48); one from someone blocked does not bring it.
    func unarchiveOnArrival(_ chatID: ChatID, from sender: PublicKey, writtenAt: Int64? = nil, in session: Session) {
        guard var entry = session.chats[chatID], let archivedAt = entry.info.preferences.archivedAt, session.blocked[sender] == nil,
            !entry.info.preferences.mute.isActive(at: configuration.clock.unixSeconds()), let service = session.service
        else { return }
        if let writtenAt, writtenAt < archivedAt { return }
        let previous = entry.info.preferences
        entry.info.preferences.archivedAt = nil
        session.chats[chatID] = entry
        keepPreferences(chatID, entry.info.preferences, previous: previous, operation: nil, service: service, session: session)
    }

    /// Schedules, on the core's timer, a redraw at the end of the next timed mute; nothing when no
    /// timed mute runs or that redraw is already pending.
    func scheduleMuteClock() {
        guard let session else { return }
        let now = configuration.clock.unixSeconds()
        let next = session.chats.values.compactMap { $0.info.preferences.mute.end(after: now) }.min()
        if let pending = session.muteClock {
            if pending.end == next { return }
            pending.task.cancel()
            session.muteClock = nil
        }
        guard let next else { return }
        let timer = configuration.timer
        let inbox = self.inbox
        let id = session.id
        let delay = Duration.seconds(next - now)
        session.muteClock = (next, Task.detached {
            await timer.sleep(delay)
            guard !Task.isCancelled else { return }
            inbox.yield(.event(.muteClockTick(session: id)))
        })
    }

    // MARK: Blocking

    /// Blocks or unblocks a person given by npub, nprofile or hex key.
    func setBlocked(_ text: String, block: Bool) {
        let operation: UserOperation = block ? .blockPerson : .unblockPerson
        guard let session else { return }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let person = Self.profilePointer(trimmed)?.publicKey ?? (try? PublicKey(hex: trimmed.lowercased())) else {
            finish(operation, .invalidNpub, "Invalid npub: enter a key that starts with npub1")
            return
        }
        guard person != session.myPublicKey else {
            finish(operation, .ownNpub, "That is your own npub: enter the other person's")
            return
        }
        guard let service = session.service else {
            finish(operation, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        let previous = session.blocked[person]
        guard block != (previous != nil) else {
            finish(operation, .ok)
            return
        }
        let now = configuration.clock.unixSeconds()
        session.blocked[person] = block ? now : nil
        let id = session.id
        spawn {
            do {
                try await service.setBlocked(person, blocked: block, at: now)
                return .blockSaved(session: id, person, blocked: block, previousAt: previous, .success(()))
            } catch {
                return .blockSaved(session: id, person, blocked: block, previousAt: previous, .failure(ServiceError(error)))
            }
        }
    }

    func blockSaved(_ person: PublicKey, blocked: Bool, previousAt: Int64?, _ result: Result<Void, ServiceError>) {
        let operation: UserOperation = blocked ? .blockPerson : .unblockPerson
        switch result {
        case .success:
            finish(operation, .ok)
        case .failure(let error):
            session?.blocked[person] = previousAt
            fail(operation, error, prefix: blocked ? "Could not block" : "Could not unblock")
        }
    }

    func blockedLoaded(_ result: Result<[BlockedPerson], ServiceError>) {
        guard let session else { return }
        switch result {
        case .success(let people):
            session.blocked = Dictionary(people.map { ($0.person, $0.blockedAt) }, uniquingKeysWith: min)
        case .failure(let error):
            logger.warning("blocked people not read", metadata: ["code": "\(error.code)"])
        }
        session.blockedListed = true
    }

    /// The refusal of a send, reply, reaction or file into a 1:1 with someone blocked; nil elsewhere.
    func blockedRefusal(_ entry: ChatEntry, in session: Session) -> String? {
        session.isBlockedDirect(entry) ? Self.blockedPeer : nil
    }

    static let blockedPeer = "You blocked this person: unblock them to send"
}
