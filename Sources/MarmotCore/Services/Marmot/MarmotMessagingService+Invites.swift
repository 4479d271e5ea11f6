import Foundation
import MLS
import Marmot
import Nostr

/// Invitations (MIP-02 Welcomes from proven admins) through the Marmot client.
extension MarmotMessagingService {
    func listInvites() async throws -> [InviteInfo] {
        try await storedClient().invites().map(Self.inviteInfo)
    }

    func acceptInvite(_ id: InviteID) async throws -> ChatInfo {
        let client = try await connectedClient()
        let group = try Self.groupID(ChatID(id.rawValue))
        do {
            let chat = try await client.acceptInvite(group)
            await yieldInvites(client)
            guard let info = try await info(chat, client: client) else { throw MarmotMessagingError.notOneToOne }
            return info
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
    }

    func declineInvite(_ id: InviteID) async throws {
        let client = try await storedClient()
        let group = try Self.groupID(ChatID(id.rawValue))
        do {
            try await client.declineInvite(group)
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
        await yieldInvites(client)
    }

    /// Sends the current invitations to the core.
    func yieldInvites(_ client: MarmotClient) async {
        continuation?.yield(.invitesChanged(await client.invites().map(Self.inviteInfo)))
    }

    /// Refreshes the profiles (kind 0) of everyone in our chats and re-sends the chats whose names
    /// changed; a failure only leaves the cached names.
    func refreshNames(_ client: MarmotClient) async {
        let me = context.keys.publicKey
        continuation?.yield(.ownProfileName(await client.cachedProfile(of: me)?.shownName))
        // The cache after the look-up: the relays' name when newer, else ours, including one we
        // published while the look-up ran (a name read before it would overwrite that one).
        await client.refreshProfiles(of: [me])
        continuation?.yield(.ownProfileLookedUp(await client.cachedProfile(of: me)?.shownName))
        guard let chats = try? await client.chats() else { return }
        let changed = await client.refreshProfiles(of: chats.flatMap(\.members).filter { $0 != me })
        guard !changed.isEmpty else { return }
        for chat in chats where chat.status == .active && chat.members.contains(where: { changed[$0] != nil }) {
            await yieldChat(chat, client: client)
        }
    }

    /// Sends what the chat now looks like (members, peer) to the core. Without its newest message:
    /// messages reach the core as `messageReceived`, in order, and a preview read from the store
    /// here could overtake them (the core would then not count them as unread).
    func yieldChat(_ chat: Chat, client: MarmotClient) async {
        guard chat.status != .pending else { return }
        do {
            if var info = try await info(chat, client: client) {
                info.lastMessage = nil
                continuation?.yield(.chatUpdated(info))
            }
        } catch {
            logger.warning("chat not listed", metadata: ["reason": "\(error)"])
        }
    }
}
