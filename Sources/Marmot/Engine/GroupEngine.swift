import Crypto
import Foundation
import MarmotWire
import MLS
import Nostr

/// One member's view of one group as a pure state machine: MLS messages in, `EngineOutput`s out.
///
/// It keeps the group's branches (`BranchGraph`), settles races between commits by protocol
/// evidence (`CommitOrderingKey`, `BranchSelector`: never by Nostr `created_at` or event id), parks
/// what cannot be processed yet, holds application messages that open only on a competing branch
/// until that branch wins, and builds our own commits against the canonical tip after checking them
/// with the same `authorize` every member runs (MDK 0.9.14 `cgka-engine`: engine / peeler /
/// runtime split; protocol-core convergence.md). No relay, clock or store inside: the runtime feeds
/// it and persists what it returns.
package struct GroupEngine: Sendable {
    package let rules: any GroupRules
    package let keys: Keys
    package private(set) var graph: BranchGraph
    /// SHA-256 of every group message processed or refused, with its epoch, so replays and
    /// duplicates do nothing; forgotten once its epoch is pruned (nothing of it can open then),
    /// and bytes that are no group message are not remembered (dropped again, as cheaply), so
    /// junk cannot grow what the engine keeps.
    private var seen: [Data: UInt64] = [:]
    /// Messages waiting for a state they need, oldest first; bounded.
    package private(set) var parked: [Data] = [] { didSet { changes.rest = true } }
    /// Application messages that opened only on a non-canonical branch, by the node they opened at.
    /// Kept in rows of their own (`EngineChanges.held`): changed only through `hold` and `forgetHeld`.
    private var held: [BranchGraph.NodeID: [HeldMessage]] = [:]
    /// Each shown application message, by digest: the node it opened at and its inner event's id
    /// (to invalidate it if that branch loses); forgotten once that node is pruned (nothing can
    /// invalidate it then).
    private var shownAt: [Data: ShownMessage] = [:]
    /// Our own application messages by the node they were sent from (re-made if it loses).
    private var sentAt: [BranchGraph.NodeID: [ChatRumor]] = [:] { didSet { changes.rest = true } }
    /// Sends waiting for our unconfirmed commits to settle.
    private var intents: [ChatRumor] = [] { didSet { changes.rest = true } }
    /// Our commits built and not yet confirmed or abandoned.
    private var awaiting: [CommitOrderingKey: UnconfirmedCommit] = [:] { didSet { changes.rest = true } }
    /// Application messages that opened on no state we hold (yet): a branch they belong to may
    /// still arrive, so they are tried again as the graph grows (MDK 0.9.14 `PeelDeferred`); not
    /// counted as waiting, since anyone who knows the group can send such bytes.
    package private(set) var deferred: [Data] = [] { didSet { changes.rest = true } }
    /// What changed besides the graph's states since `takeChanges()` (`EngineChanges`).
    private var changes = EngineChanges.Tracked()
    /// The kind-445 key of each retained state, derived once (`peelKeys()`); memory only.
    var eventKeys: [BranchGraph.NodeID: GroupEventKey] = [:]
    /// The graph's version when the deferred messages were last tried (they are tried again only
    /// once a state was added).
    private var deferredTriedAt = -1
    /// Set when inputs had to be dropped from a full parked queue.
    private var lostInputs = 0 { didSet { changes.rest = true } }
    /// The last branch selection that had more than one candidate.
    package private(set) var lastDecision: BranchDecision?
    /// How much of each input others can make it keep (`EngineLimits`).
    package var limits = EngineLimits()

    package init(rules: any GroupRules, keys: Keys, state: MLSGroup, policy: ConvergencePolicy = .v1) {
        self.rules = rules
        self.keys = keys
        graph = BranchGraph(anchor: state, policy: policy)
        changes.rest = true
    }

    package var me: PublicKey { keys.publicKey }
    package var state: MLSGroup { graph.tip.mls }
    package var epoch: UInt64 { state.epoch }
    package var isActive: Bool { state.isActive }
    package var metadata: GroupMetadata? { rules.metadataIfValid(state.extensions) }
    package var members: [PublicKey] { state.members.compactMap { NostrIdentity.publicKey($0.credential) } }
    package var hasParked: Bool { !parked.isEmpty }

    /// What a store keeps of this engine (`EngineRecord`): everything it needs to carry on after
    /// a restart. The last decision is for the log only and is not kept.
    package var record: EngineRecord { record(withNodes: true) }

    /// The record, without its states, digests and shown messages when only the rest is wanted
    /// (`EngineChanges.rest`).
    func record(withNodes: Bool) -> EngineRecord {
        EngineRecord(
            policy: graph.policy, nodes: withNodes ? graph.recordNodes : [], canonical: graph.canonical,
            anchor: graph.anchor, nextID: graph.version, seen: withNodes ? seen : [:], parked: parked, deferred: deferred,
            lostInputs: lostInputs, held: withNodes ? held : [:], shownAt: withNodes ? shownAt : [:], sentAt: sentAt,
            intents: intents,
            awaiting: awaiting.values.map {
                EngineRecord.Awaiting(parent: $0.parent, key: $0.key, bytes: $0.bytes, state: $0.newGroup.serialized())
            })
    }

    /// The graph's changes and those noted beside them since the last call, and a fresh start
    /// (`takeChanges()`).
    mutating func takeTracked() -> (graph: BranchGraph.Changes, engine: EngineChanges.Tracked) {
        defer { changes = EngineChanges.Tracked() }
        return (graph.takeChanges(), changes)
    }

    /// Re-opens the group from a `record`, as a restarted runtime does from its store: only what
    /// the record holds survives (every retained state is read back from its serialized form).
    package init(rules: any GroupRules, keys: Keys, record: EngineRecord) throws(EngineRecordError) {
        self.rules = rules
        self.keys = keys
        graph = try BranchGraph(record: record)
        seen = record.seen
        parked = record.parked
        deferred = record.deferred
        lostInputs = record.lostInputs
        held = record.held
        if record.heldInRest {
            // Written before held messages had rows: the next changes move them there.
            changes.rest = true
            for (node, messages) in record.held.sorted(by: { $0.key < $1.key }) {
                for (position, message) in messages.enumerated() {
                    changes.held.append(.add(node: node, position: position, message: message))
                }
            }
        }
        shownAt = record.shownAt
        sentAt = record.sentAt
        intents = record.intents
        for commit in record.awaiting {
            guard let state = try? MLSGroup(serialized: commit.state) else {
                throw .damaged("an unconfirmed commit's state does not read")
            }
            awaiting[commit.key] = UnconfirmedCommit(parent: commit.parent, key: commit.key, bytes: commit.bytes, newGroup: state)
        }
    }

    /// Holds `message` at `node` (it opened only on that non-canonical branch), noting the row.
    private mutating func hold(_ message: HeldMessage, at node: BranchGraph.NodeID) {
        let position = held[node]?.count ?? 0
        held[node, default: []].append(message)
        changes.held.append(.add(node: node, position: position, message: message))
    }

    /// Forgets every message held at `nodes` (shown, or their state is gone), noting the rows.
    private mutating func forgetHeld(_ nodes: [BranchGraph.NodeID]) {
        for node in nodes.sorted() where held.removeValue(forKey: node) != nil {
            changes.held.append(.forget(node: node))
        }
    }

    // MARK: Inbound

    /// Takes one MLS message (a commit, proposal or application message of this group).
    package mutating func receive(_ bytes: Data) -> [EngineOutput] {
        let digest = Data(SHA256.hash(data: bytes))
        guard seen[digest] == nil else { return [.duplicate] }
        let message: MLSMessage
        let header: (group: GroupID, epoch: UInt64, type: ContentType)
        do {
            message = try MLSMessage(tlsSerialized: bytes)
            header = try MLSGroup.header(of: message)
        } catch {
            return [.dropped(.malformedMessage("not a group message: \(error)"))]
        }
        guard header.group == state.groupID else { return [.dropped(.malformedMessage("message of another group"))] }
        let outputs: [EngineOutput]
        switch header.type {
        case .commit: outputs = receiveCommit(message, bytes: bytes, digest: digest, epoch: header.epoch)
        case .proposal: outputs = receiveProposal(message, digest: digest, epoch: header.epoch)
        case .application: outputs = receiveApplication(message, digest: digest, epoch: header.epoch)
        }
        if outputs == [.parked] {
            guard park(bytes, type: header.type, epoch: header.epoch) else {
                return [.dropped(.limitReached("\(parked.count) messages already wait for a state"))]
            }
        } else if outputs == [.deferred] {
            guard deferred.contains(bytes) || deferred.count < limits.deferred else {
                remember(digest, epoch: header.epoch)
                return [.dropped(.limitReached("undecryptable, and \(limits.deferred) such messages already wait"))]
            }
            if !deferred.contains(bytes) { deferred.append(bytes) }
        } else if !outputs.contains(.duplicate), !outputs.contains(where: Self.isFromRemovedSender) {
            // A removed member's message is not remembered either: its ratchet did not move, so
            // it is dropped again as cheaply, and a flood of them leaves nothing behind.
            remember(digest, epoch: header.epoch)
        }
        return outputs
    }

    private static func isFromRemovedSender(_ output: EngineOutput) -> Bool {
        if case .dropped(.senderRemoved) = output { true } else { false }
    }

    /// Notes a digest as seen (`seen`), and as a change for the store.
    private mutating func remember(_ digest: Data, epoch: UInt64) {
        seen[digest] = epoch
        changes.seen[digest] = epoch
    }

    /// Notes where a shown message opened (`shownAt`), and as a change for the store.
    private mutating func show(_ digest: Data, at id: BranchGraph.NodeID, rumor: EventID) {
        let shown = ShownMessage(node: id, rumor: rumor)
        shownAt[digest] = shown
        changes.shown[digest] = shown
    }

    /// Forgets where shown messages opened.
    private mutating func unshow(_ digests: some Sequence<Data>) {
        for digest in digests where shownAt.removeValue(forKey: digest) != nil {
            if changes.shown.removeValue(forKey: digest) == nil { changes.shownForgotten.insert(digest) }
        }
    }

    /// Parks `bytes` (a message of `type` for `epoch`, whose state is not there yet); false when it
    /// is refused. Past `limits.parked` (or `parkedBytes`) what waits stays: a new application
    /// message is refused, a new commit or proposal takes the place of the oldest application
    /// messages if any, else it is refused and the group reports blocked until its tip moves past
    /// that epoch. Before, the oldest of all went, so anyone with a retained epoch key could push a
    /// waiting commit out with junk claiming the next epoch, and the group stayed blocked for good
    /// (security review 2026-12-01, D7).
    private mutating func park(_ bytes: Data, type: ContentType, epoch: UInt64) -> Bool {
        guard !parked.contains(bytes) else { return true }
        var total = parkedBytes + bytes.count
        func full() -> Bool { parked.count >= limits.parked || total > limits.parkedBytes }
        if full() {
            guard type != .application else { return false }
            var index = 0
            while full(), index < parked.count {
                let isApplication = (try? MLSGroup.header(of: MLSMessage(tlsSerialized: parked[index])))?.2 == .application
                if isApplication {
                    total -= parked[index].count
                    parked.remove(at: index)
                } else {
                    index += 1
                }
            }
            if full() {
                lostInputs += 1
                lostBelow = max(lostBelow ?? epoch, epoch)
                return false
            }
        }
        parked.append(bytes)
        return true
    }

    /// Bytes of the parked messages.
    private var parkedBytes: Int { parked.reduce(0) { $0 + $1.count } }

    /// The highest epoch of a commit or proposal refused for want of room (`park`): once the tip
    /// is past it, nothing lost can matter any more and the group no longer reports blocked.
    private var lostBelow: UInt64?

    /// Clears `lostInputs` once the tip moved past every epoch an input was lost for (a record read
    /// back does not say which: the next epoch clears it).
    private mutating func forgetLostInputs() {
        guard lostInputs > 0 else { return }
        guard let lost = lostBelow else {
            lostBelow = graph.tip.epoch
            return
        }
        if graph.tip.epoch > lost {
            lostInputs = 0
            lostBelow = nil
        }
    }

    /// Where the group stands in settling on one history.
    package var status: ConvergenceStatus {
        if lostInputs > 0 { return .blocked("\(lostInputs) parked inputs were dropped; re-fetch the group's history") }
        if !awaiting.isEmpty { return .resolving(pendingCommits: awaiting.count) }
        if !parked.isEmpty { return .syncing(waiting: parked.count) }
        return .settled
    }

    /// After a full re-fetch of the group's history was fed in: the lost inputs no longer block.
    package mutating func refetched() { lostInputs = 0 }

    private mutating func receiveCommit(_ message: MLSMessage, bytes: Data, digest: Data, epoch: UInt64) -> [EngineOutput] {
        // Our own commit, given back by a relay while we wait to confirm it (after a restart, say):
        // a relay took it, so it is in force (MLS cannot process our own commit as another's).
        if let ours = awaiting.values.first(where: { $0.key.digest == digest }) {
            adopt(ours)
            return []
        }
        let parents = graph.nodes(atEpoch: epoch)
        guard !parents.isEmpty else {
            return epoch > graph.tip.epoch ? [.parked] : [.dropped(.staleCommit(epoch: epoch))]
        }
        var refusal = DropReason.malformedMessage("no retained state of epoch \(epoch) accepts it")
        for parent in parents {
            guard let before = graph.nodes[parent]?.mls else { continue }
            let result: ProcessedMessage
            let next: MLSGroup
            do { (result, next) = try before.processing(message) } catch {
                // Refused for its framing (v2: handshakes are PublicMessages): no state takes it.
                if case .wireFormatNotAllowed = error { return [.dropped(.mls(error))] }
                refusal = .mls(error)
                continue
            }
            guard case .commit(let summary) = result else { return [.dropped(.malformedMessage("a commit did not process as one"))] }
            do {
                try rules.authorize(summary, message: message, before: before, after: next)
            } catch {
                return [.dropped(error)]
            }
            guard let key = rules.orderingKey(summary, message: message, before: before),
                  let committer = try? PublicKey(bytes: key.committer) else {
                return [.dropped(.unauthorizedCommit("the committer has no Nostr identity"))]
            }
            guard makeRoom(under: parent, for: key) else {
                return [.dropped(.limitReached("\(limits.commitsPerState) competing commits from epoch \(epoch) are kept"))]
            }
            let id = graph.extend(from: parent, to: next, commit: .init(key: key))
            guard parent == graph.canonical else { return [] }
            graph.adopt(id)
            return [.commitApplied(summary, committer: committer, epoch: next.epoch)]
        }
        // A commit made on a state we have not seen yet (its parent commit is still on its way).
        return epoch >= graph.nodes[graph.anchor]!.epoch ? [.parked] : [.dropped(refusal)]
    }

    /// Whether a commit with `key` may become a child of `parent`: room is there, or is made by
    /// dropping the worst-ranked competing commit (a leaf off the canonical path) that `key`
    /// outranks, so a member flooding one state with self-updates cannot crowd out an admin's
    /// commit (`EngineLimits.commitsPerState`; MDK 0.9.14 keeps 8 candidate branches).
    private mutating func makeRoom(under parent: BranchGraph.NodeID, for key: CommitOrderingKey) -> Bool {
        let children = graph.nodes[parent]?.children ?? []
        guard children.count >= limits.commitsPerState,
              !children.contains(where: { graph.nodes[$0]?.commit?.key == key }) else { return true }
        let canonicalPath = Set(graph.path(to: graph.canonical))
        let worst = children.compactMap { id -> (BranchGraph.NodeID, CommitOrderingKey)? in
            guard let node = graph.nodes[id], node.children.isEmpty, !canonicalPath.contains(id), let theirs = node.commit?.key,
                  !awaiting.values.contains(where: { $0.parent == id }) else { return nil }
            return (id, theirs)
        }.max { $0.1 < $1.1 }
        guard let (id, theirs) = worst, key < theirs else { return false }
        graph.discard(id)
        eventKeys[id] = nil
        unshow(shownAt.filter { $0.value.node == id }.map(\.key))
        forgetHeld([id])
        if sentAt[id] != nil { sentAt[id] = nil }
        return true
    }

    private mutating func receiveProposal(_ message: MLSMessage, digest: Data, epoch: UInt64) -> [EngineOutput] {
        let targets = graph.nodes(atEpoch: epoch)
        guard !targets.isEmpty else { return epoch > graph.tip.epoch ? [.parked] : [.dropped(.malformedMessage("proposal of a past epoch"))] }
        var stored: ProposalType?
        var full: DropReason?
        for id in targets {
            guard let mls = graph.nodes[id]?.mls, let processed = try? mls.processing(message) else { continue }
            if case .proposal(let pending) = processed.0 {
                if mls.proposals.count { $0.sender == pending.sender } >= limits.proposalsPerSender {
                    full = .limitReached("\(limits.proposalsPerSender) proposals of one sender already pending")
                    continue
                }
                if mls.proposals.count >= limits.proposals {
                    full = .limitReached("\(limits.proposals) proposals already pending")
                    continue
                }
                graph.update(id, processed.1)
                stored = pending.proposal.type
            }
        }
        if let stored { return [.proposalStored(stored)] }
        return [.dropped(full ?? .malformedMessage("the proposal opens on no state of epoch \(epoch)"))]
    }

    private mutating func receiveApplication(_ message: MLSMessage, digest: Data, epoch: UInt64) -> [EngineOutput] {
        // The canonical tip first (its retained past epochs included), then every other branch.
        let others = graph.nodes.values.filter { $0.epoch >= epoch && !graph.isCanonical($0.id) }
            .sorted { ($0.epoch, $0.id) < ($1.epoch, $1.id) }.map(\.id)
        for id in [graph.canonical] + others {
            guard let mls = graph.nodes[id]?.mls, let processed = try? mls.processing(message),
                  case .application(let app) = processed.0 else { continue }
            guard let sender = NostrIdentity.publicKey(app.credential) else { return [.dropped(.invalidRumor(.malformed("sender credential is not a Nostr key")))] }
            // Its state is left as it was: nothing of a removed member's flood is kept or written.
            guard app.epoch == mls.epoch || mls.members.contains(where: { NostrIdentity.publicKey($0.credential) == sender }) else {
                return [.dropped(.senderRemoved(epoch: app.epoch))]
            }
            graph.update(id, processed.1, ratchetsOnly: true)
            let rumor: ChatRumor
            do { rumor = try rules.rumor(app.data, sender: sender) } catch {
                return [.dropped(error)]
            }
            let at = graph.ancestor(of: id, atEpoch: app.epoch) ?? id
            graph.witness(AppWitness(epoch: app.epoch, sender: Data(sender.bytes)), at: at)
            if id == graph.canonical {
                show(digest, at: at, rumor: rumor.id)
                return [.application(sender: sender, rumor: rumor, epoch: app.epoch, digest: digest, leaf: app.sender)]
            }
            guard held.values.reduce(0, { $0 + $1.count }) < limits.held else {
                return [.dropped(.limitReached("\(limits.held) messages already held on competing branches"))]
            }
            hold(HeldMessage(sender: sender, rumor: rumor, epoch: app.epoch, digest: digest, leaf: app.sender), at: at)
            return []
        }
        if epoch > graph.tip.epoch || graph.nodes.values.contains(where: { $0.epoch > graph.tip.epoch }) { return [.parked] }
        // Below the anchor nothing can open it any more; otherwise a branch it belongs to may
        // still come (its commits can arrive after it).
        return epoch < graph.nodes[graph.anchor]!.epoch ? [.dropped(.malformedMessage("undecryptable in every retained state"))] : [.deferred]
    }

    // MARK: Settling

    /// Runs branch selection and retries parked messages until nothing changes; returns what the
    /// runtime must show or send again.
    package mutating func settle() -> [EngineOutput] {
        var outputs: [EngineOutput] = []
        var progressed = true
        while progressed {
            progressed = false
            outputs += select()
            forgetLostInputs()
            let retry = graph.version != deferredTriedAt
            let waiting = parked, unopened = retry ? deferred : []
            // Emptied only when not empty: an emptied list is a change the store writes.
            if !parked.isEmpty { parked = [] }
            if retry {
                if !deferred.isEmpty { deferred = [] }
                deferredTriedAt = graph.version
            }
            for bytes in waiting + unopened {
                let result = receive(bytes)
                if result != [.parked] && result != [.deferred] { progressed = true }
                outputs += result.filter { $0 != .parked && $0 != .deferred }
            }
        }
        let pruned = graph.prune()
        if !pruned.isEmpty {
            // Shown messages of pruned states can no longer be invalidated, held ones never show
            // and our sends there are never made again: none of it names a state that is gone.
            unshow(shownAt.filter { pruned.contains($0.value.node) }.map(\.key))
            forgetHeld(held.keys.filter(pruned.contains))
            if sentAt.keys.contains(where: pruned.contains) { sentAt = sentAt.filter { !pruned.contains($0.key) } }
        }
        // What the pruned history could have opened never opens now, and its digests can go.
        let anchorEpoch = graph.nodes[graph.anchor]!.epoch
        let forgotten = seen.values.contains { $0 < anchorEpoch } ? seen.filter { $0.value < anchorEpoch }.map(\.key) : []
        for digest in forgotten {
            seen[digest] = nil
            if changes.seen.removeValue(forKey: digest) == nil { changes.seenForgotten.insert(digest) }
        }
        let stale: (Data) -> Bool = { bytes in
            guard let message = try? MLSMessage(tlsSerialized: bytes), let header = try? MLSGroup.header(of: message) else { return true }
            return header.1 < anchorEpoch
        }
        // Only when something goes: any mutation is a change the store writes.
        if !pruned.isEmpty, deferred.contains(where: stale) { deferred.removeAll(where: stale) }
        return outputs + drainIntents()
    }

    private mutating func select() -> [EngineOutput] {
        let before = graph.canonical
        let oldPath = Set(graph.path(to: before))
        let fromEpoch = graph.tip.epoch
        if let decision = graph.select(rules: rules) { lastDecision = decision }
        guard graph.canonical != before else { return [] }
        let newPath = graph.path(to: graph.canonical)
        let abandoned = oldPath.subtracting(newPath)
        let lost = shownAt.filter { abandoned.contains($0.value.node) }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        unshow(lost.map(\.key))
        let invalidated = lost.map(\.value.rumor)
        let resend = abandoned.sorted().flatMap { sentAt.removeValue(forKey: $0) ?? [] }
        var outputs: [EngineOutput] = [.branchSwitched(fromEpoch: fromEpoch, toEpoch: graph.tip.epoch, invalidated: invalidated)]
        intents = resend + intents
        for id in newPath where !oldPath.contains(id) {
            let shown = held[id] ?? []
            forgetHeld([id])
            for message in shown {
                show(message.digest, at: id, rumor: message.rumor.id)
                outputs.append(.application(
                    sender: message.sender, rumor: message.rumor, epoch: message.epoch, digest: message.digest, leaf: message.leaf))
            }
        }
        return outputs
    }

    // MARK: Our own changes

    /// Builds a commit on the canonical tip: adds, removals, proposals (group data), pending
    /// SelfRemoves, or a self-update with a fresh signer; refused before anything is published
    /// when the rules every member runs would refuse it.
    package mutating func commit(
        adding keyPackages: [KeyPackage] = [], removing removed: [PublicKey] = [], proposals: [Proposal] = [],
        selfRemovesOnly: Bool = false, rotateSigner: Bool = false
    ) throws(EngineError) -> OwnCommit {
        guard isActive else { throw .notAMember }
        let admin = metadata?.isAdmin(me) ?? false
        if !admin && (!keyPackages.isEmpty || !removed.isEmpty || !proposals.isEmpty) { throw .notAdmin }
        var mls = state
        let leaves = removed.compactMap { key in
            mls.members.first { NostrIdentity.publicKey($0.credential) == key }?.leafIndex
        }
        let current = state
        let rules = rules
        let pending: PendingCommit
        do {
            let rotation = rotateSigner ? try signerRotation() : nil
            pending = try mls.commit(
                adding: keyPackages, removing: leaves, proposals: proposals, includePendingProposals: true,
                signerRotation: rotation,
                proposalFilter: { rules.willCommit($0, in: current) })
        } catch let error as GroupError {
            throw .mls("\(error)")
        } catch {
            throw .mls("\(error)")
        }
        if selfRemovesOnly && pending.summary.selfRemoved.isEmpty { throw .mls("no SelfRemove to commit") }
        return try own(pending, madeFrom: mls)
    }

    /// Takes a commit of ours built on the canonical tip by the caller (`mls`: the tip as building
    /// it left it, its handshake key used): refused before anything is published when the rules
    /// every member runs would refuse it, else kept as unconfirmed until `confirm` or `abandon`.
    package mutating func own(_ pending: PendingCommit, madeFrom mls: MLSGroup) throws(EngineError) -> OwnCommit {
        guard mls.epoch == state.epoch, mls.groupID == state.groupID else { throw .mls("the commit was not made on the selected state") }
        do {
            try rules.authorize(pending.summary, message: pending.message, before: state, after: pending.newGroup)
        } catch {
            throw .refused(error)
        }
        guard let key = rules.orderingKey(pending.summary, message: pending.message, before: state) else {
            throw .unauthorized("our leaf has no Nostr identity")
        }
        graph.update(graph.canonical, mls)
        let own = OwnCommit(parent: graph.canonical, pending: pending, key: key)
        awaiting[key] = own.unconfirmed
        return own
    }

    /// A fresh signature key for our leaf with the leaf extensions the group's version wants.
    private func signerRotation() throws -> SignerRotation {
        let signer = SignaturePrivateKey.generate()
        return SignerRotation(signer: signer, leafExtensions: try rules.ownLeaf(keys: keys, signer: signer).extensions)
    }

    /// Whether others' SelfRemove proposals wait on the canonical tip for a commit we may make.
    package var hasCommittableSelfRemoves: Bool {
        state.proposals.contains { $0.sender != .member(leafIndex: state.ownLeafIndex) && rules.willCommit($0, in: state) }
    }

    /// Adopts our published commit. When another commit of the same epoch was applied meanwhile,
    /// ours becomes a competing branch and selection decides.
    package mutating func confirm(_ own: OwnCommit) -> [EngineOutput] { confirm(own.unconfirmed) }

    /// Adopts a commit of ours a relay took (`confirm(_:)`), as kept while unconfirmed: after a
    /// restart the runtime confirms those it publishes again.
    package mutating func confirm(_ commit: UnconfirmedCommit) -> [EngineOutput] {
        // Adopted already (a relay gave it back meanwhile): nothing more to do.
        guard !graph.contains(commit.key) else {
            awaiting[commit.key] = nil
            return []
        }
        guard adopt(commit) else { return [.dropped(.malformedMessage("our commit's parent state was pruned"))] + drainIntents() }
        return settle()
    }

    /// Puts our commit in the graph (on the tip when it was made there) and stops waiting for it;
    /// false when the state it was made on was pruned meanwhile.
    @discardableResult
    private mutating func adopt(_ commit: UnconfirmedCommit) -> Bool {
        awaiting[commit.key] = nil
        guard graph.nodes[commit.parent] != nil else { return false }
        remember(commit.key.digest, epoch: commit.key.sourceEpoch)
        let onTip = commit.parent == graph.canonical
        let id = graph.extend(from: commit.parent, to: commit.newGroup, commit: .init(key: commit.key))
        if onTip { graph.adopt(id) }
        return true
    }

    /// Our commits built and not yet confirmed or abandoned, oldest epoch first: a restarted
    /// runtime publishes them again.
    package var unconfirmed: [UnconfirmedCommit] { awaiting.values.sorted { $0.key < $1.key } }

    /// Forgets a commit of ours that no relay took (MIP-03: it never happened); queued sends go
    /// out on the state we stay in.
    package mutating func abandon(_ own: OwnCommit) -> [EngineOutput] {
        awaiting[own.key] = nil
        return drainIntents()
    }

    /// Sends an application message: encrypted now, or queued while a commit of ours is unconfirmed
    /// (it would otherwise be made on a state that is about to be left). `rumor` is the inner
    /// event (any kind: a chat message, a reaction, an edit…), authored by us.
    package mutating func send(_ rumor: ChatRumor) throws(EngineError) -> SendDisposition {
        guard isActive else { throw .notAMember }
        guard rumor.author == me else { throw .unauthorized("a message of ours must be authored by our account") }
        guard awaiting.isEmpty else {
            guard intents.count < limits.intents else { throw .queueFull(limits.intents) }
            intents.append(rumor)
            return .queued
        }
        return .published(try encrypt(rumor))
    }

    /// A chat message of ours with `content` (`send(_:)` of its rumor).
    package mutating func send(_ content: String, createdAt: Int64) throws(EngineError) -> SendDisposition {
        try send(try Self.chatRumor(by: me, content, createdAt: createdAt))
    }

    /// Makes the queued sends on the canonical tip once nothing of ours is unconfirmed.
    private mutating func drainIntents() -> [EngineOutput] {
        guard awaiting.isEmpty, isActive, !intents.isEmpty else { return [] }
        let waiting = intents
        intents = []
        var outputs: [EngineOutput] = []
        for intent in waiting {
            do {
                outputs.append(.publish(try encrypt(intent), rumor: intent.id))
            } catch {
                outputs.append(.dropped(.malformedMessage("queued message of ours not sent: \(error)")))
            }
        }
        return outputs
    }

    /// Encrypts an application message of ours (`rumor`, authored by us) on the canonical tip.
    package mutating func encrypt(_ rumor: ChatRumor) throws(EngineError) -> Data {
        guard isActive else { throw .notAMember }
        guard rumor.author == me else { throw .unauthorized("a message of ours must be authored by our account") }
        var mls = state
        do {
            let message = try mls.encrypt(rumor.plaintext)
            graph.update(graph.canonical, mls)
            let tip = graph.canonical, bound = limits.sentPerState
            var sent = sentAt[tip, default: []]
            sent.append(rumor)
            if sent.count > bound { sent.removeFirst(sent.count - bound) }
            sentAt[tip] = sent
            // Our message witnesses our branch as every member that reads it counts it (MDK 0.9.14
            // feeds its own stamped application messages to selection like others').
            graph.witness(AppWitness(epoch: mls.epoch, sender: Data(me.bytes)), at: graph.canonical)
            let bytes = message.tlsSerialized
            remember(Data(SHA256.hash(data: bytes)), epoch: mls.epoch)
            return bytes
        } catch {
            throw .mls("\(error)")
        }
    }

    /// Encrypts a chat message of ours with `content` (`encrypt(_:)` of its rumor).
    package mutating func encrypt(_ content: String, createdAt: Int64) throws(EngineError) -> Data {
        try encrypt(try Self.chatRumor(by: me, content, createdAt: createdAt))
    }

    private static func chatRumor(by author: PublicKey, _ content: String, createdAt: Int64) throws(EngineError) -> ChatRumor {
        do { return try ChatRumor(author: author, content: content, createdAt: createdAt) } catch { throw .mls("\(error)") }
    }

    /// A SelfRemove proposal of ours (leaving: another member commits it).
    package mutating func proposeLeave() throws(EngineError) -> Data {
        guard isActive else { throw .notAMember }
        var mls = state
        do {
            let message = try mls.proposeSelfRemove()
            graph.update(graph.canonical, mls)
            let bytes = message.tlsSerialized
            remember(Data(SHA256.hash(data: bytes)), epoch: mls.epoch)
            return bytes
        } catch {
            throw .mls("\(error)")
        }
    }
}
