import Foundation
import MLS
import Nostr
import NostrClient

/// MIP-02 invitations: Welcomes wait for the user's answer instead of being joined silently.
extension MarmotClient {
    /// Pending invitations, newest first.
    public func invites() -> [Invite] {
        sessions.values.filter { $0.stored.status == .pending }.compactMap { invite($0.id) }
            .sorted {
                $0.receivedAt != $1.receivedAt ? $0.receivedAt > $1.receivedAt : $0.id.bytes.lexicographicallyPrecedes($1.id.bytes)
            }
    }

    /// The pending invitation to group `id`, if there is one.
    func invite(_ id: GroupID) -> Invite? {
        guard let session = sessions[id], session.stored.status == .pending,
              let data = try? store.setting(ClientSettings.invite(id)), let record = try? InviteRecord(encoded: data)
        else { return nil }
        return Invite(
            id: id, inviter: record.inviter, name: session.stored.name, groupDescription: session.stored.groupDescription,
            members: session.memberKeys, admins: session.stored.admins, receivedAt: record.receivedAt,
            wrapID: record.wrapID)
    }

    /// Accepts a pending invitation: the group becomes active, its events are fetched (all of them,
    /// so commits made since the Welcome apply in order) and the post-join self-update MIP-02 asks
    /// for is owed until that catch-up is done. Reports `welcomeJoined`.
    public func acceptInvite(_ id: GroupID) async throws -> Chat {
        try requireStarted()
        await acquire()
        guard let invite = invite(id), var session = sessions[id] else {
            release()
            throw MarmotClientError.unknownInvite(id)
        }
        do {
            try storage {
                var row = try store.group(mlsGroupID: id) ?? session.stored
                row.status = .active
                row.createdAt = now()
                try store.saveGroup(row)
                session.stored = row
                if options.selfUpdateAfterJoin { try store.setSetting(ClientSettings.selfUpdateDue(id), Data([1])) }
            }
        } catch {
            release()
            throw error
        }
        sessions[id] = session
        await useGroupRelays(session.stored.relays)
        await subscribe(.group(id))
        release()
        logger.info("accepted the invitation to \(id) from \(invite.inviter.hex)")
        let chat = session.chat
        emit(.welcomeJoined(chat, inviter: invite.inviter))
        return chat
    }

    /// Declines a pending invitation: the group, its keys and the record are deleted, so nothing of
    /// it is left behind; nothing is sent (as MDK declines).
    public func declineInvite(_ id: GroupID) async throws {
        await acquire()
        defer { release() }
        guard sessions[id]?.stored.status == .pending else { throw MarmotClientError.unknownInvite(id) }
        try storage {
            try store.deleteGroup(mlsGroupID: id)
            try store.setSetting(ClientSettings.invite(id), nil)
        }
        sessions[id] = nil
        parked[id] = nil
        logger.info("declined the invitation to \(id)")
    }
}
