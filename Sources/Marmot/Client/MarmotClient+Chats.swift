import Foundation
import MLS
import Nostr
import NostrClient

/// MIP-01/02: creating a 1:1 chat.
extension MarmotClient {
    /// Starts a 1:1 chat with `peer`, or returns the existing one.
    ///
    /// Fetches the peer's newest valid KeyPackage (kinds 30443/443), creates the group as MDK does
    /// (16-byte random MLS group id, NostrGroupData v2 with a random nostr_group_id, us as the only
    /// admin, required_capabilities from the invitee), commits the Add and merges it locally without
    /// publishing it (MIP-03 exception for the initial commit), persists, subscribes to the group's
    /// `h`, and sends the gift-wrapped kind-444 Welcome (to our relays and the peer's inbox relays).
    /// The group's relays are ours plus the peer's (`newGroupRelays(ours:invitees:cap:)`), and join
    /// our pool, so a peer whose relays do not overlap ours still reads and writes the chat. When no
    /// relay accepts the Welcome the new group is deleted again and `.notPublished` is thrown.
    public func createChat(with peer: PublicKey, name: String = "", description: String = "") async throws -> ChatCreation {
        try requireStarted()
        guard peer != publicKey else { throw MarmotClientError.cannotChatWithSelf }
        if let existing = oneToOne(with: peer) { return ChatCreation(chat: existing.chat, isNew: false, welcome: nil) }
        peerRelayLists[peer] = nil  // read them fresh for this invitation
        let invitee = try await fetchKeyPackage(of: peer)
        let groupRelays = await newGroupRelays(inviting: [invitee])

        await acquire()
        if let existing = oneToOne(with: peer) {
            release()
            return ChatCreation(chat: existing.chat, isNew: false, welcome: nil)
        }
        let welcome: Welcome
        let groupID: GroupID
        do {
            (groupID, welcome) = try buildGroup(
                inviting: [invitee], name: name, description: description, admins: [publicKey], relays: groupRelays,
                peer: peer)
        } catch {
            release()
            throw error
        }
        await subscribe(.group(groupID))
        let addedRelays = await useGroupRelays(groupRelays)
        release()

        let wrap: Event
        do {
            wrap = try WelcomeRumor.wrap(
                welcome: welcome, author: keys, invitee: invitee, relays: groupRelays, client: options.clientTag,
                createdAt: now()
            ).giftWrap
        } catch {
            await discardNewGroup(groupID, addedRelays: addedRelays)
            throw MarmotClientError.encoding("welcome: \(error)")
        }
        let result = await publishWelcome(wrap, to: peer)
        guard result.isSent else {
            await discardNewGroup(groupID, addedRelays: addedRelays)
            throw MarmotClientError.notPublished(result)
        }
        logger.info("chat \(groupID) created with \(peer.hex); welcome accepted by \(result.accepted.count) relays")
        return ChatCreation(chat: try session(groupID).chat, isNew: true, welcome: result)
    }

    /// Builds, commits and stores the group with `invitees` added (`admins` must include us; `relays`
    /// are the group's, from `newGroupRelays(inviting:)`; `peer` is the proven 1:1 peer, nil for a
    /// group); returns its id and the Welcome.
    func buildGroup(
        inviting invitees: [PeerKeyPackage], name: String, description: String, admins: [PublicKey],
        relays groupRelays: [RelayURL], peer: PublicKey?
    ) throws -> (GroupID, Welcome) {
        let provider = CipherSuiteProvider.mls128X25519
        let groupID = GroupID(provider.randomBytes(16))
        let groupData = NostrGroupData(
            nostrGroupID: .random(), name: name, description: description, admins: admins, relays: groupRelays)
        var group: MLSGroup
        let pending: PendingCommit
        do {
            group = try MLSGroup.create(
                groupID: groupID, signer: provider.generateSignatureKey(), credential: NostrIdentity.credential(publicKey),
                capabilities: .marmotDefault(grease: true),
                groupContextExtensions: MarmotGroupExtensions.groupContextExtensions(
                    groupData: groupData, invitees: invitees.map(\.keyPackage)),
                configuration: .marmot)
            pending = try group.commit(adding: invitees.map(\.keyPackage))
        } catch {
            throw MarmotClientError.mls(error)
        }
        guard let welcome = pending.welcome else { throw MarmotClientError.encoding("the Add commit produced no Welcome") }
        let mls = pending.newGroup
        let row = StoredGroup(
            mlsGroupID: groupID, nostrGroupID: groupData.nostrGroupID, mlsState: mls.serialized(), epoch: mls.epoch,
            name: groupData.name, groupDescription: groupData.groupDescription, admins: groupData.admins,
            relays: groupData.relays, peer: peer, status: .active, createdAt: now())
        try storage { try store.saveGroup(row) }
        sessions[groupID] = GroupSession(mls: mls, stored: row, eventKeys: [])
        do {
            try storeCurrentEventKey(groupID)
        } catch {
            sessions[groupID] = nil
            try? store.deleteGroup(mlsGroupID: groupID)
            throw MarmotClientError.storage("\(error)")
        }
        return (groupID, welcome)
    }

    /// Removes a group whose Welcome could not be delivered (nothing was sent in it), and the relays
    /// it added to the pool.
    func discardNewGroup(_ id: GroupID, addedRelays: [RelayURL] = []) async {
        await acquire()
        await unsubscribe(.group(id))
        sessions[id] = nil
        do { try store.deleteGroup(mlsGroupID: id) } catch { logger.error("cannot delete undelivered group \(id): \(error)") }
        await dropUnusedRelays(addedRelays)
        release()
    }

    /// The peer's newest KeyPackage event that passes every MIP-00 check (kind 30443 preferred on a
    /// created_at tie), read from our relays, else from the relays the peer's lists name
    /// (`keyPackageEvents(of:)`), until EOSE or `keyPackageFetchTimeout`.
    func fetchKeyPackage(of peer: PublicKey) async throws -> PeerKeyPackage {
        let found = await keyPackageEvents(of: peer).filter { $0.pubkey == peer }

        let ordered = found.sorted { a, b in
            if a.createdAt != b.createdAt { return a.createdAt > b.createdAt }
            return a.kind == .addressableKeyPackage && b.kind != .addressableKeyPackage
        }
        var rejected: [String] = []
        for event in ordered {
            do {
                return try PeerKeyPackage(event: event, now: now())
            } catch {
                rejected.append("\(event.id.hex.prefix(12)): \(error)")
            }
        }
        throw MarmotClientError.noKeyPackage(peer, rejected: rejected)
    }
}
