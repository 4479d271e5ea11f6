import Foundation
import MLS
import Nostr
import NostrClient

/// MIP-02 invitations: Welcomes wait for the user's answer instead of being joined silently.
extension MarmotClient {
    /// Pending invitations, newest first.
    public func invites() -> [Invite] {
        try? loadStoredGroups()
        return sessions.values.filter { $0.stored.status == .pending }.compactMap { invite($0.id) }
            .sorted {
                $0.receivedAt != $1.receivedAt ? $0.receivedAt > $1.receivedAt : $0.id.bytes.lexicographicallyPrecedes($1.id.bytes)
            }
    }

    /// The pending invitation to group `id`, if there is one.
    func invite(_ id: GroupID) -> Invite? {
        guard let session = sessions[id], session.stored.status == .pending,
              let data = try? store.invitation(mlsGroupID: id), let record = try? InviteRecord(encoded: data)
        else { return nil }
        return Invite(
            id: id, inviter: record.inviter, name: session.stored.name, groupDescription: session.stored.groupDescription,
            members: session.memberKeys, admins: session.stored.admins, receivedAt: record.receivedAt,
            wrapID: record.wrapID)
    }

    /// Accepts a pending invitation: the group becomes active, its events are fetched (all of them,
    /// so commits made since the Welcome apply in order) and the post-join self-update MIP-02 asks
    /// for is owed until that catch-up is done. Reports `welcomeJoined`. An invitation back into a
    /// group we had left or been removed from adds the system line "added again" after our old
    /// messages (MDK's `readd-after-eviction`).
    public func acceptInvite(_ id: GroupID) async throws -> Chat {
        try requireStarted()
        await acquire()
        guard let invite = invite(id), var session = sessions[id] else {
            release()
            throw MarmotClientError.unknownInvite(id)
        }
        var hadLeft = false
        do {
            try storage {
                var row = try store.group(mlsGroupID: id) ?? session.stored
                row.status = .active
                row.createdAt = now()
                try store.saveGroup(row)
                session.stored = row
                if options.selfUpdateAfterJoin { try store.setSetting(ClientSettings.selfUpdateDue(id), Data([1])) }
                hadLeft = try store.formerState(mlsGroupID: id) != nil
                try store.deleteInvitation(mlsGroupID: id)
            }
        } catch {
            release()
            throw error
        }
        sessions[id] = session
        if hadLeft {
            let notice = SystemNotice(change: .readded, actor: invite.inviter, subject: publicKey)
            let message = notice.message(in: id, commit: invite.wrapID, createdAt: now(), me: publicKey)
            do {
                try store.saveMessage(message)
                refreshRow(id)
                if let chat = sessions[id]?.chat { emit(.membershipChanged(chat, message)) }
            } catch {
                logger.error("cannot store the added-again line in \(id): \(error)")
            }
        }
        await syncPoolRelays()
        await subscribe(.group(id))
        release()
        logger.info("accepted the invitation to \(id) from \(invite.inviter.hex)")
        let chat = session.chat
        emit(.welcomeJoined(chat, inviter: invite.inviter))
        if !options.selfUpdateAfterJoin { emit(.joinSettled(chat)) }
        // Our other devices learn our leaf here (issue 29).
        Task { [weak self] in await self?.announceThisDevice() }
        return chat
    }

    /// Declines a pending invitation: the group, its keys and the record are deleted, so nothing of
    /// it is left behind; nothing is sent (as MDK declines). An invitation back into a group we had
    /// left puts its inactive state back instead, so our old messages stay readable.
    public func declineInvite(_ id: GroupID) async throws {
        await acquire()
        defer { release() }
        guard var session = sessions[id], session.stored.status == .pending else { throw MarmotClientError.unknownInvite(id) }
        let former = try storage { try store.formerState(mlsGroupID: id) }
        if let former, let mls = try? MLSGroup(serialized: former) {
            session.mls = mls
            session.stored.setState(mls)
            session.stored.status = .inactive
            try storage {
                try store.unitOfWork {
                    try store.saveGroup(session.stored)
                    try store.deleteInvitation(mlsGroupID: id)
                }
            }
            sessions[id] = session
            try anchorEngine(id)
            logger.info("declined the invitation back into \(id); its old state is kept")
            return
        }
        try storage { try store.deleteGroup(mlsGroupID: id) }  // the invitation goes with it
        sessions[id] = nil
        dropEngine(id)
        parked[id] = nil
        logger.info("declined the invitation to \(id)")
    }
}
