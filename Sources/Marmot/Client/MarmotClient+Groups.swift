import Foundation
import MLS
import Nostr
import NostrClient

/// Why a group operation was refused before anything was built or sent (MIP-01 group data rules,
/// MIP-03 admin rules as MDK 0.8.0 applies them). Thrown by `createGroup`, `addMembers`,
/// `removeMembers`, `leaveGroup`, `updateGroupData` and `selfDemote`; the other failures of those
/// calls are `MarmotClientError`s.
public enum GroupChangeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call names no member.
    case noMembers
    /// We cannot be an invitee or removed by our own commit (MLS: a member never commits its own
    /// removal; leave with `leaveGroup`).
    case cannotTargetSelf
    /// This key is already a member of the group.
    case alreadyMember(PublicKey)
    /// This key is not a member of the group.
    case notAMember(PublicKey)
    /// An admin must be a member (MDK's rule on create and on group data updates).
    case adminNotMember(PublicKey)
    /// The change would leave the group without an admin that is a member (MIP-03).
    case lastAdmin(GroupID)
    /// A change only v2 groups can carry (the chat is v1).
    case unsupportedInV1(String)

    public var description: String {
        switch self {
        case .noMembers: "group: no member given"
        case .cannotTargetSelf: "group: cannot invite or remove oneself (use leaveGroup)"
        case .alreadyMember(let key): "group: \(key.hex) is already a member"
        case .notAMember(let key): "group: \(key.hex) is not a member"
        case .adminNotMember(let key): "group: admin \(key.hex) is not a member"
        case .lastAdmin(let id): "group: \(id) would have no admin left; name another admin first"
        case .unsupportedInV1(let what): "group: \(what) need a v2 chat; this one is v1"
        }
    }
}

/// What `addMembers` did: the published commit and each invitee's gift-wrapped Welcome.
public struct MembershipChange: Sendable, Hashable {
    public let commit: CommitOutcome
    /// Per-relay verdicts for each invitee's Welcome. The commit is in effect whatever these say:
    /// an invitee whose Welcome no relay took is a member that cannot read yet (remove and add it
    /// again to retry).
    public let welcomes: [PublicKey: PoolPublishResult]

    public init(commit: CommitOutcome, welcomes: [PublicKey: PoolPublishResult]) {
        self.commit = commit
        self.welcomes = welcomes
    }
}

/// MIP-01/02/03 group chats: creating a group of several members, adding and removing members,
/// leaving, and changing the group data (name, description, admins).
extension MarmotClient {
    /// Creates a group with `members` and sends each one a Welcome.
    ///
    /// Every member's newest valid KeyPackage is fetched first, all of one protocol version (v2 when
    /// every member has one, else v1); a member without fails the whole call (`.noKeyPackage` naming
    /// it) before anything is created. The group is built as MDK builds it: `name`, `description`,
    /// admins = us + `admins` (each must be one of `members`), the version's required capabilities
    /// (`GroupRules`), and as relays ours plus the invitees' (`newGroupRelays(ours:invitees:cap:)`;
    /// they join our pool). The Add commit is merged locally without publishing (MIP-03 exception for
    /// the initial commit), then one gift-wrapped Welcome goes to each invitee (the author of the
    /// KeyPackage its `e` tag names), on our pool and the invitee's inbox relays. When no Welcome
    /// reached any relay the group is deleted and `.notPublished` is thrown.
    public func createGroup(
        name: String, description: String = "", members: [PublicKey], admins: [PublicKey] = []
    ) async throws -> ChatCreation {
        try requireStarted()
        let invitees = Self.unique(members)
        guard !invitees.isEmpty else { throw GroupChangeError.noMembers }
        guard !invitees.contains(publicKey) else { throw GroupChangeError.cannotTargetSelf }
        for admin in admins where admin != publicKey && !invitees.contains(admin) {
            throw GroupChangeError.adminNotMember(admin)
        }
        for member in invitees { peerRelayLists[member] = nil }  // read them fresh for this invitation
        let packages = try await fetchKeyPackages(of: invitees)
        let groupRelays = await newGroupRelays(inviting: packages)

        await acquire()
        let groupID: GroupID
        let welcome: Welcome
        do {
            (groupID, welcome) = try buildGroup(
                inviting: packages, name: name, description: description, admins: Self.unique([publicKey] + admins),
                relays: groupRelays, peer: nil)
        } catch {
            release()
            throw error
        }
        await syncPoolRelays()
        await subscribe(.group(groupID))
        release()

        let welcomes: [PublicKey: PoolPublishResult]
        do {
            welcomes = try await sendWelcomes(welcome, to: packages, relays: groupRelays, group: groupID)
        } catch {
            await discardNewGroup(groupID)
            throw error
        }
        guard let first = packages.first.flatMap({ welcomes[$0.author] }) else {
            await discardNewGroup(groupID)
            throw MarmotClientError.encoding("no welcome was built")
        }
        guard welcomes.values.contains(where: \.isSent) else {
            await discardNewGroup(groupID)
            throw MarmotClientError.notPublished(first)
        }
        logger.info("group \(groupID) created with \(invitees.count) members")
        return ChatCreation(chat: try session(groupID).chat, isNew: true, welcome: first, welcomes: welcomes)
    }

    /// Adds `members` to a group we administer.
    ///
    /// Their KeyPackages are fetched first (any missing fails the call before the commit). The Add
    /// commit is published and merged once a relay accepted it; only then do the Welcomes go out,
    /// one per invitee (MIP-02: a Welcome for an epoch the others may never see would strand the
    /// joiner).
    ///
    /// The group's relays stay as they are: changing them takes a GroupContextExtensions commit of
    /// its own, and the Add commit carries only the Adds (as MDK's `add_members`). The Welcome names
    /// the group's relays and goes to our pool and the invitee's inbox relays; an invitee none of
    /// whose relays (10002, else its KeyPackage's `relays`) is a group relay is logged, since it
    /// reads the group only if its client follows the group's relays (MIP-01).
    public func addMembers(_ members: [PublicKey], to id: GroupID) async throws -> MembershipChange {
        try requireStarted()
        let invitees = Self.unique(members)
        try checkAdd(invitees, session: try session(id))
        for member in invitees { peerRelayLists[member] = nil }  // read them fresh for this invitation
        let packages = try await fetchKeyPackages(of: invitees, version: try session(id).stored.version)

        await acquireSettled(id)
        let outcome: CommitOutcome
        var welcome: Welcome?
        do {
            try checkAdd(invitees, session: try session(id))
            outcome = try await commitExclusive(id) { mls, filter throws(GroupError) in
                let pending = try mls.commit(adding: packages.map(\.keyPackage), proposalFilter: filter)
                welcome = pending.welcome
                return pending
            }
        } catch {
            release()
            throw error
        }
        let groupRelays = sessions[id]?.stored.relays ?? relays
        release()
        guard let welcome else { throw MarmotClientError.encoding("the Add commit produced no Welcome") }
        let groupKeys = Set(groupRelays.map(Self.sameRelayKey))
        for package in packages {
            let theirs = await inviteeRelays(package)
            if !theirs.contains(where: { groupKeys.contains(Self.sameRelayKey($0)) }) {
                logger.warning("\(package.author.hex) uses none of group \(id)'s relays; it must follow them to read the group")
            }
        }
        let welcomes = try await sendWelcomes(welcome, to: packages, relays: groupRelays, group: id)
        logger.info("added \(invitees.count) members to \(id)")
        return MembershipChange(commit: outcome, welcomes: welcomes)
    }

    /// Removes `members` from a group we administer. A removed admin is also taken off the admin
    /// list in the same commit (a GroupContextExtensions proposal next to the Removes, as MDK does);
    /// the group must keep an admin. Published, then merged once a relay accepted it.
    public func removeMembers(_ members: [PublicKey], from id: GroupID) async throws -> CommitOutcome {
        try requireStarted()
        let targets = Self.unique(members)
        await acquireSettled(id)
        defer { release() }
        let session = try session(id)
        guard isAdmin(session) else { throw MarmotClientError.notAdmin(id) }
        guard !targets.isEmpty else { throw GroupChangeError.noMembers }
        guard !targets.contains(publicKey) else { throw GroupChangeError.cannotTargetSelf }
        var leaves: [LeafIndex] = []
        for target in targets {
            let found = session.mls.members.filter { NostrIdentity.publicKey($0.credential) == target }
            guard !found.isEmpty else { throw GroupChangeError.notAMember(target) }
            leaves += found.map(\.leafIndex)
        }
        var extra: [Proposal] = []
        let data = try currentGroupData(session)
        if targets.contains(where: data.isAdmin) {
            var updated = data
            updated.admins = data.admins.filter { !targets.contains($0) }
            let remaining = Set(session.memberKeys).subtracting(targets)
            guard updated.admins.contains(where: remaining.contains) else { throw GroupChangeError.lastAdmin(id) }
            extra += try changeProposals(session, to: updated)
        }
        return try await commitExclusive(id) { mls, filter throws(GroupError) in
            try mls.commit(removing: leaves, proposals: extra, proposalFilter: filter)
        }
    }

    /// Changes the group data of a group we administer: name, description, admins (nil keeps the
    /// current value). Admins must be members and at least one. A GroupContextExtensions commit
    /// with the new 0xF2EE value (MIP-01), published then merged once a relay accepted it.
    public func updateGroupData(
        _ id: GroupID, name: String? = nil, description: String? = nil, admins: [PublicKey]? = nil, retention: UInt64? = nil
    ) async throws -> CommitOutcome {
        try requireStarted()
        await acquireSettled(id)
        defer { release() }
        return try await updateGroupDataExclusive(id, name: name, description: description, admins: admins, retention: retention)
    }

    /// Closes a v2 group for good, for every member, in the one shape MDK 0.9.14 accepts (all inline:
    /// every other leaf removed, lifecycle 0x800c disbanded, admin policy us alone; v2 conformance
    /// review N1): nobody can send in it afterwards; its history stays readable.
    public func disbandGroup(_ id: GroupID) async throws -> CommitOutcome {
        try requireStarted()
        await acquireSettled(id)
        defer { release() }
        let session = try session(id)
        guard isAdmin(session) else { throw MarmotClientError.notAdmin(id) }
        let proposals = try session.rules.disbandProposals(session.mls, me: publicKey)
        // Nothing pending rides along: MDK refuses a disband with any other proposal or one by reference.
        return try await commitExclusive(id) { mls, _ throws(GroupError) in
            try mls.commit(proposals: proposals, proposalFilter: { _ in false })
        }
    }

    /// Takes us off the admin list of a group that has another admin who is a member (MDK's
    /// `self_demote`; MIP-03 asks an admin to do this before leaving).
    public func selfDemote(_ id: GroupID) async throws -> CommitOutcome {
        try requireStarted()
        await acquireSettled(id)
        defer { release() }
        return try await selfDemoteExclusive(id)
    }

    /// Asks to leave the group: a SelfRemove proposal (PublicMessage, MIP-03) that an admin
    /// commits; the chat becomes inactive when that commit arrives. An admin first steps down
    /// (`selfDemote`, as MIP-03 requires and MDK enforces: it ignores an admin's SelfRemove) —
    /// impossible when it is the only admin (`.lastAdmin`). If the proposal then reaches no relay,
    /// the demotion stays and `.notPublished` is thrown. Returns the relays' verdicts for the
    /// proposal. Note that MDK members auto-commit a SelfRemove whether admin or not, so several
    /// commits may race for it (resolved by the race rule, marmot-wire §5.7).
    @discardableResult
    public func leaveGroup(_ id: GroupID) async throws -> PoolPublishResult {
        try requireStarted()
        await acquireSettled(id)
        defer { release() }
        var session = try session(id)
        guard session.mls.isActive, session.stored.status == .active else { throw MarmotClientError.chatInactive(id) }
        if isAdmin(session) {
            _ = try await selfDemoteExclusive(id)
            session = try self.session(id)
        }
        let (message, key, keepState) = try proposeOwnLeave(in: session)
        let event: Event
        do {
            event = try session.rules.groupEvent(message, nostrGroupID: session.stored.nostrGroupID, key: key, createdAt: now())
        } catch {
            throw MarmotClientError.encoding("leave proposal event: \(error)")
        }
        try storage {
            try store.unitOfWork {
                try keepState()
                try store.recordProcessedEvent(ProcessedEvent(eventID: event.id, outcome: .own, processedAt: now(), mlsGroupID: id))
            }
        }
        let result = await pool.publish(event, to: route(id))
        guard result.isSent else { throw MarmotClientError.notPublished(result) }
        logger.info("asked to leave \(id)")
        return result
    }

    // MARK: Helpers

    func updateGroupDataExclusive(
        _ id: GroupID, name: String?, description: String?, admins: [PublicKey]?, retention: UInt64? = nil,
        image: GroupImage?? = nil
    ) async throws -> CommitOutcome {
        let session = try session(id)
        guard isAdmin(session) else { throw MarmotClientError.notAdmin(id) }
        var data = try currentGroupData(session)
        if let retention { data.retention = retention }
        if let name { data.name = name }
        if let description { data.groupDescription = description }
        if let image { data.image = image }
        if let admins {
            let members = Set(session.memberKeys)
            guard !admins.isEmpty else { throw GroupChangeError.lastAdmin(id) }
            for admin in admins where !members.contains(admin) { throw GroupChangeError.adminNotMember(admin) }
            data.admins = Self.unique(admins).sorted()
        }
        let proposals = try changeProposals(session, to: data)
        return try await commitExclusive(id) { mls, filter throws(GroupError) in
            try mls.commit(proposals: proposals, proposalFilter: filter)
        }
    }

    func selfDemoteExclusive(_ id: GroupID) async throws -> CommitOutcome {
        let session = try session(id)
        guard isAdmin(session) else { throw MarmotClientError.notAdmin(id) }
        let members = Set(session.memberKeys)
        let others = session.stored.admins.filter { $0 != publicKey && members.contains($0) }
        guard !others.isEmpty else { throw GroupChangeError.lastAdmin(id) }
        return try await updateGroupDataExclusive(id, name: nil, description: nil, admins: others)
    }

    private func checkAdd(_ invitees: [PublicKey], session: GroupSession) throws {
        guard session.mls.isActive, session.stored.status == .active else { throw MarmotClientError.chatInactive(session.id) }
        guard isAdmin(session) else { throw MarmotClientError.notAdmin(session.id) }
        guard !invitees.isEmpty else { throw GroupChangeError.noMembers }
        guard !invitees.contains(publicKey) else { throw GroupChangeError.cannotTargetSelf }
        let members = Set(session.memberKeys)
        for invitee in invitees where members.contains(invitee) { throw GroupChangeError.alreadyMember(invitee) }
    }

    /// The group's metadata as its MLS state holds it.
    func currentGroupData(_ session: GroupSession) throws -> GroupMetadata {
        do {
            return try session.rules.metadata(of: session.mls.extensions)
        } catch {
            throw MarmotClientError.encoding("group data: \(error)")
        }
    }

    /// The proposals of the group's version that change its metadata to `data` (v1: one
    /// GroupContextExtensions; v2: AppDataUpdates).
    private func changeProposals(_ session: GroupSession, to data: GroupMetadata) throws -> [Proposal] {
        do {
            return try session.rules.proposals(changing: session.mls.extensions, to: data)
        } catch {
            throw MarmotClientError.encoding("group data: \(error)")
        }
    }

    /// Gift-wraps `welcome` to each invitee (the author of its KeyPackage) and publishes it on our
    /// relays, group `group`'s and the invitee's inbox relays (`publishWelcome(_:to:group:)`).
    func sendWelcomes(
        _ welcome: Welcome, to packages: [PeerKeyPackage], relays groupRelays: [RelayURL], group: GroupID
    ) async throws -> [PublicKey: PoolPublishResult] {
        var results: [PublicKey: PoolPublishResult] = [:]
        for package in packages {
            let wrap: Event
            do {
                wrap = try package.version.rules.wrapWelcome(
                    welcome, author: keys, invitee: package, relays: groupRelays, client: options.clientTag, createdAt: now())
            } catch {
                throw MarmotClientError.encoding("welcome: \(error)")
            }
            let result = await publishWelcome(wrap, to: package.author, group: group)
            if !result.isSent { logger.warning("welcome to \(package.author.hex) not accepted by any relay") }
            results[package.author] = result
        }
        return results
    }

    static func unique(_ keys: [PublicKey]) -> [PublicKey] {
        var seen: Set<PublicKey> = []
        return keys.filter { seen.insert($0).inserted }
    }
}
