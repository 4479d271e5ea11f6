import Foundation
import MLS
import Nostr
import NostrClient

/// MIP-01/02: creating a 1:1 chat.
extension MarmotClient {
    /// Starts a 1:1 chat with `peer`, or returns the existing one.
    ///
    /// Fetches the peer's newest valid KeyPackage, v2 when the peer publishes one and v1 otherwise
    /// (`fetchKeyPackage`); the chat speaks that version. Creates the group as MDK does (16-byte
    /// random MLS group id, a random nostr_group_id, us as the only admin, the version's required
    /// capabilities and components — `GroupRules`), commits the Add and merges it locally without
    /// publishing it (MIP-03 exception for the initial commit), persists, subscribes to the group's
    /// `h`, and sends the gift-wrapped kind-444 Welcome (to our relays and the peer's inbox relays).
    /// The group's relays are ours plus the peer's (`newGroupRelays(ours:invitees:cap:)`), and join
    /// our pool, so a peer whose relays do not overlap ours still reads and writes the chat. When no
    /// relay accepts the Welcome the new group is deleted again and `.notPublished` is thrown.
    ///
    /// `relayHints` (an nprofile's relays, NIP-19) are searched for the peer's relay lists and key
    /// packages besides our relays and the relays the peer's lists name.
    public func createChat(
        with peer: PublicKey, name: String = "", description: String = "", relayHints: [RelayURL] = []
    ) async throws -> ChatCreation {
        try requireStarted()
        guard peer != publicKey else { throw MarmotClientError.cannotChatWithSelf }
        if let existing = oneToOne(with: peer) { return ChatCreation(chat: existing.chat, isNew: false, welcome: nil) }
        peerRelayLists[peer] = nil  // read them fresh for this invitation
        let invitee = try await fetchKeyPackage(of: peer, hints: relayHints)
        let groupRelays = await newGroupRelays(inviting: [invitee], hints: relayHints)

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
        await syncPoolRelays()
        await subscribe(.group(groupID))
        release()

        let wrap: Event
        do {
            wrap = try invitee.version.rules.wrapWelcome(
                welcome, author: keys, invitee: invitee, relays: groupRelays, client: options.clientTag, createdAt: now())
        } catch {
            await discardNewGroup(groupID)
            throw MarmotClientError.encoding("welcome: \(error)")
        }
        let result = await publishWelcome(wrap, to: peer, group: groupID)
        guard result.isSent else {
            await discardNewGroup(groupID)
            throw MarmotClientError.notPublished(result)
        }
        logger.info("chat \(groupID) created with \(peer.hex); welcome accepted by \(result.accepted.count) relays")
        return ChatCreation(chat: try session(groupID).chat, isNew: true, welcome: result)
    }

    /// Builds, commits and stores the group with `invitees` added (`admins` must include us; `relays`
    /// are the group's, from `newGroupRelays(inviting:)`; `peer` is the proven 1:1 peer, nil for a
    /// group); returns its id and the Welcome. The group speaks the invitees' protocol version (all
    /// the same, see `fetchKeyPackages`).
    func buildGroup(
        inviting invitees: [PeerKeyPackage], name: String, description: String, admins: [PublicKey],
        relays groupRelays: [RelayURL], peer: PublicKey?
    ) throws -> (GroupID, Welcome) {
        let provider = CipherSuiteProvider.mls128X25519
        let groupID = GroupID(provider.randomBytes(16))
        let version = invitees.first?.version ?? .v1
        let rules = version.rules
        let groupData = GroupMetadata(
            nostrGroupID: .random(), name: name, description: description, admins: admins, relays: groupRelays)
        var group: MLSGroup
        let pending: PendingCommit
        do {
            group = try rules.foundingState(
                groupID: groupID, keys: keys, metadata: groupData, invitees: invitees.map(\.keyPackage))
            pending = try group.commit(adding: invitees.map(\.keyPackage))
        } catch let error as GroupError {
            throw MarmotClientError.mls(error)
        } catch {
            throw MarmotClientError.encoding("group: \(error)")
        }
        guard let welcome = pending.welcome else { throw MarmotClientError.encoding("the Add commit produced no Welcome") }
        let mls = pending.newGroup
        let row = StoredGroup(
            mlsGroupID: groupID, nostrGroupID: groupData.nostrGroupID, mlsState: Data(), epoch: mls.epoch,
            name: groupData.name, groupDescription: groupData.groupDescription, admins: groupData.admins,
            relays: groupData.relays, peer: peer, status: .active, createdAt: now(), version: version)
        try registerNewGroup(row, mls: mls)
        return (groupID, welcome)
    }

    /// Removes a group whose Welcome could not be delivered (nothing was sent in it), and the relays
    /// it added to the pool.
    func discardNewGroup(_ id: GroupID) async {
        await acquire()
        await unsubscribe(.group(id))
        sessions[id] = nil
        dropEngine(id)
        do { try store.deleteGroup(mlsGroupID: id) } catch { logger.error("cannot delete undelivered group \(id): \(error)") }
        await syncPoolRelays()
        release()
    }

    /// The peer's newest valid KeyPackage of `version`, or with nil of the newest version the peer
    /// publishes one of (v2 before v1: the network has moved to v2), read from our relays, else from
    /// the relays the peer's lists name (`keyPackageEvents(of:)`), until EOSE or
    /// `keyPackageFetchTimeout`.
    func fetchKeyPackage(of peer: PublicKey, version: MarmotVersion? = nil, hints: [RelayURL] = []) async throws -> PeerKeyPackage {
        try await fetchKeyPackages(of: [peer], version: version, hints: hints)[0]
    }

    /// One key package per member, all of one version: `version`, or with nil v2 when every member
    /// has a v2 one, else v1 when every member has a v1 one (a group speaks one protocol). A member
    /// with none of the wanted versions fails with `.noKeyPackage`.
    func fetchKeyPackages(
        of members: [PublicKey], version: MarmotVersion? = nil, hints: [RelayURL] = []
    ) async throws -> [PeerKeyPackage] {
        let wanted = version.map { [$0] } ?? [.v2, .v1]
        var all: [PublicKey: (valid: [PeerKeyPackage], rejected: [String])] = [:]
        for member in members { all[member] = try await keyPackageCandidates(of: member, hints: hints) }
        for version in wanted {
            let chosen = members.compactMap { member in all[member]?.valid.first { $0.version == version } }
            if chosen.count == members.count { return chosen }
        }
        for member in members where !(all[member]?.valid.contains { wanted.contains($0.version) } ?? false) {
            throw MarmotClientError.noKeyPackage(member, rejected: all[member]?.rejected ?? [])
        }
        throw MarmotClientError.mixedProtocolVersions
    }

    /// Every key package of `peer` that passes its version's checks, newest first (kind 30443 before
    /// 443 on a created_at tie), and why the others were refused.
    private func keyPackageCandidates(
        of peer: PublicKey, hints: [RelayURL] = []
    ) async throws -> (valid: [PeerKeyPackage], rejected: [String]) {
        let found = await keyPackageEvents(of: peer, hints: hints).filter { $0.pubkey == peer }
        let ordered = found.sorted { a, b in
            if a.createdAt != b.createdAt { return a.createdAt > b.createdAt }
            return a.kind == .addressableKeyPackage && b.kind != .addressableKeyPackage
        }
        var valid: [PeerKeyPackage] = []
        var rejected: [String] = []
        for event in ordered {
            // Each event is one version's: a v1 parser refuses v2 content and tags, and the reverse.
            do {
                valid.append(try PeerKeyPackage(event: event, now: now()))
            } catch let v1 {
                do {
                    valid.append(try PeerKeyPackage(v2Event: event, now: now()))
                } catch let v2 {
                    rejected.append("\(event.id.hex.prefix(12)): v1: \(v1); v2: \(v2)")
                }
            }
        }
        return (valid, rejected)
    }

    /// Stores a group we just made, with `mls` as its state (stored apart; `made.mlsState` is not
    /// read), and opens its session with its epoch's event key; undone when the key cannot be
    /// stored, so no half-made group is left.
    func registerNewGroup(_ made: StoredGroup, mls: MLSGroup) throws {
        var row = made
        row.setState(mls)
        let groupID = row.mlsGroupID
        try storage { try store.saveGroup(row) }
        sessions[groupID] = GroupSession(mls: mls, stored: row, eventKeys: [])
        do {
            try storeCurrentEventKey(groupID)
            try anchorEngine(groupID)
        } catch {
            sessions[groupID] = nil
            dropEngine(groupID)
            try? store.deleteGroup(mlsGroupID: groupID)
            throw MarmotClientError.storage("\(error)")
        }
    }
}

/// One chat as the chat list shows it, read with every other in one call (`chatListing`).
public struct ChatListing: Sendable {
    public let chat: Chat
    public let isNotes: Bool
    public let convergence: ConvergenceStatus
    /// Whether the chat's current picture is stored here (false without a picture).
    public let hasImageContent: Bool
    /// The chat's newest message (a page of one), to find its preview from.
    public let newest: MessagePage

    public init(chat: Chat, isNotes: Bool, convergence: ConvergenceStatus, hasImageContent: Bool, newest: MessagePage) {
        self.chat = chat
        self.isNotes = isNotes
        self.convergence = convergence
        self.hasImageContent = hasImageContent
        self.newest = newest
    }
}

extension MarmotClient {
    /// Every chat (`chats()`) with what the chat list shows of it, in one call: the chat list at
    /// launch asked four to five times per chat, and read the Notes setting once per chat (issue 27).
    public func chatListing() throws -> [ChatListing] {
        let notes = notesGroupID()
        return try chats().map { try listing($0, notes: notes) }
    }

    /// One chat as the chat list shows it (what `chatListing` gives for each), after a change to it.
    public func listing(of chat: Chat) throws -> ChatListing {
        try listing(chat, notes: notesGroupID())
    }

    private func listing(_ chat: Chat, notes: GroupID?) throws -> ChatListing {
        ChatListing(
            chat: chat, isNotes: chat.id == notes, convergence: convergence(of: chat.id),
            hasImageContent: (chat.image != nil || chat.avatarURL != nil) && hasGroupImageContent(chat.id),
            newest: try messages(in: chat.id, limit: 1))
    }

    /// The cached kind-0 profiles of `people` that have one (`cachedProfile(of:)` for each).
    public func cachedProfiles(of people: Set<PublicKey>) -> [PublicKey: Profile] {
        var profiles: [PublicKey: Profile] = [:]
        for person in people { profiles[person] = cachedProfile(of: person) }
        return profiles
    }
}
