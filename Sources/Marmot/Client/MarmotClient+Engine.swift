import Crypto
import Foundation
import MarmotWire
import MLS
import Nostr
import NostrClient

/// Groups whose version settles races by protocol evidence (v2, MDK 0.9.14) run on the group
/// engine (issue 24); this is the runtime of MDK's engine / peeler / runtime split. Every retained
/// state of every branch, parked and deferred messages, held messages, our sends and unconfirmed
/// commits are the engine's, kept in the store's engine rows; the client peels with the engine's
/// keys, feeds it, and does what its outputs say (messages stored and shown, system lines,
/// invalidated messages marked, our lost sends published again, the group's row, relays and
/// subscription following the selected state). `session.mls` is the engine's selected state,
/// read-only: every change goes through the engine.
extension MarmotClient {
    /// The store's engine rows (the client's store is the GRDB one).
    var engineStore: GRDBMarmotStore {
        get throws(MarmotClientError) {
            guard let store = store as? GRDBMarmotStore else { throw .storage("this store keeps no group engines") }
            return store
        }
    }

    /// The engine of a group whose version runs on one: re-opened from its rows, or, for a group
    /// kept as one state in its row (stored before the engine), anchored at
    /// that state, its rows written and the row's state cleared in one transaction. Nil for v1.
    func openEngine(_ stored: StoredGroup) throws -> GroupEngine? {
        let rules = stored.version.rules
        guard rules.settlesByEvidence else { return nil }
        let store = try engineStore
        var engine = try store.engineRows(mlsGroupID: stored.mlsGroupID).map { rows in
            try GroupEngine(rules: rules, keys: keys, record: try rows.record())
        } ?? store.moveToEngine(stored, rules: rules, keys: keys)
        engine.limits = engineLimits
        return engine
    }

    /// The engine's bounds, with the client's proposal caps (the same for both versions).
    var engineLimits: EngineLimits {
        var limits = EngineLimits()
        limits.proposals = options.pendingProposalLimit
        limits.proposalsPerSender = options.pendingProposalsPerSender
        return limits
    }

    // MARK: Steps

    /// Runs one input on group `id`'s engine, takes its outputs (`take`), writes the engine's
    /// changed rows, and brings the session and the group's row in step with the selected state.
    /// Outputs are taken before the rows are written: a failure undoes the input (the engine is a
    /// value, put back as it was), so a crash can show a message twice but never lose one.
    func engineStep(
        _ id: GroupID, _ input: (inout GroupEngine) throws(EngineError) -> [EngineOutput],
        take: ([EngineOutput], GroupEngine) throws -> Void
    ) throws -> [EngineOutput] {
        guard var engine = engines[id] else { throw MarmotClientError.unknownChat(id) }
        let outputs = try input(&engine)
        try take(outputs, engine)
        try engineStore.saveEngineChanges(engine.takeChanges(), mlsGroupID: id)
        engines[id] = engine
        try followEngine(id)
        return outputs
    }

    /// `engineStep` with the outputs taken by the client (`takeOutputs`), as what `event` did (nil
    /// for an input of ours) to the group as it was in `before`.
    func takeInput(
        _ id: GroupID, before: GroupSession, event: Event?, carried: Data? = nil,
        _ input: (inout GroupEngine) throws(EngineError) -> [EngineOutput]
    ) throws -> (outputs: [EngineOutput], applied: Applied) {
        var applied = Applied(group: id, outcome: .processed)
        let outputs = try engineStep(id, input) { outputs, engine in
            applied = try takeOutputs(outputs, engine: engine, before: before, event: event, carried: carried)
        }
        return (outputs, applied)
    }

    /// The session and the group's row take the engine's selected state: its data (name,
    /// description, admins, relays, `h`), epoch, and whether we are still in it.
    func followEngine(_ id: GroupID) throws {
        guard let engine = engines[id], var session = sessions[id] else { return }
        let moved = session.mls.epochAuthenticator != engine.state.epochAuthenticator
        session.mls = engine.state
        var row = session.stored
        if let data = engine.metadata {
            row.nostrGroupID = data.nostrGroupID
            row.name = data.name
            row.groupDescription = data.groupDescription
            row.admins = data.admins
            row.relays = data.relays
        }
        row.epoch = engine.epoch
        if !engine.isActive || engine.metadata?.disbanded == true { row.status = .inactive }
        // Written only when the selected state changed it (not for every message: the store moves
        // the activity columns itself, re-read here so the write keeps them).
        if row != session.stored {
            if let activity = try store.groupActivity(mlsGroupID: id) { row.activity = activity }
            try store.saveGroup(row)
        }
        session.stored = row
        sessions[id] = session
        if moved { keepMediaSecrets(of: engine, group: id) }
    }

    /// Keeps the media secret of every state on the selected branch, so a file sent in any epoch
    /// the group passed through opens after the engine prunes that state (architecture review
    /// §3.3-a: only the tip's was kept, on v1's paths, and a v2 file of a past epoch did not open).
    func keepMediaSecrets(of engine: GroupEngine, group id: GroupID) {
        var secrets: [(epoch: UInt64, secret: Data)] = []
        for node in engine.graph.path(to: engine.graph.canonical) {
            guard let mls = engine.graph.nodes[node]?.mls else { continue }
            do {
                secrets.append((mls.epoch, try engine.rules.media.secret(of: mls).bytes))
            } catch {
                logger.warning("media secret of \(id) epoch \(mls.epoch) not derived: \(error)")
            }
        }
        do { try store.saveMediaSecrets(secrets, mlsGroupID: id) } catch { logger.warning("media secrets of \(id) not kept: \(error)") }
    }

    // MARK: Inbound

    /// A kind-445 event of an engine group: peeled with the keys of every retained state, fed to
    /// the engine and settled; its outputs become the client's (`takeOutputs`).
    func applyEngineEvent(_ event: Event, session: GroupSession) throws(DropReason) -> Applied {
        let id = session.id
        guard var engine = engines[id], let peeler = engine.peeler(window: options.eventWindow) else {
            throw .unknownGroup(session.stored.nostrGroupID)
        }
        engines[id] = engine  // the keys it derived
        let peeled = try peeler.peel(event, now: now())
        let before = session
        let version = engine.graph.version
        let oldPath = engine.graph.path(to: engine.graph.canonical)
        let waiting = engine.unconfirmed.map(\.key)
        let outputs: [EngineOutput]
        var applied: Applied
        do {
            (outputs, applied) = try takeInput(id, before: before, event: event, carried: peeled.bytes) { engine in
                engine.receive(peeled.bytes) + engine.settle()
            }
        } catch let error as DropReason {
            throw error
        } catch {
            throw .storage("\(error)")
        }
        if outputs.count == 1, case .dropped(let why) = outputs[0] { throw why }
        // A state was added (on any branch): events that did not peel may open now.
        applied.branchGrew = applied.branchGrew || engines[id]?.graph.version != version
        if applied.switchedBranch { noteLostOwnCommit(id, oldPath: oldPath, before: before, into: &applied) }
        if !waiting.isEmpty { noteOwnCommitsGivenBack(id, waiting: waiting, into: &applied) }
        return applied
    }

    /// Our commits a relay gave back while we waited for its answer (adopted by the engine): in
    /// force, reported as ours, with their system lines when this run published them.
    private func noteOwnCommitsGivenBack(_ id: GroupID, waiting: [CommitOrderingKey], into applied: inout Applied) {
        guard let engine = engines[id] else { return }
        let still = Set(engine.unconfirmed.map(\.key))
        for key in waiting where !still.contains(key) && engine.graph.contains(key) {
            logger.info("our unconfirmed commit in \(id) came back from a relay: in force")
            if let (own, event, previous) = unconfirmedCommits.removeValue(forKey: key) {
                store(
                    Self.notices(for: own.pending.summary, committer: publicKey, previous: previous, current: engine.metadata),
                    commit: event, group: id)
                applied.committed.append((own.pending.newGroup.epoch, publicKey))
            } else {
                applied.committed.append((key.sourceEpoch + 1, publicKey))
            }
            noteOwnCommit(id)
        }
    }

    /// After a branch switch: the first commit of ours on the branch the group left, what it changed
    /// made again on the winner when still missing there (issue 24, N4: only as a new commit of
    /// ours, authorized on the winning state; the winner's own changes are never reverted).
    private func noteLostOwnCommit(_ id: GroupID, oldPath: [BranchGraph.NodeID], before: GroupSession, into applied: inout Applied) {
        guard let engine = engines[id] else { return }
        let graph = engine.graph
        let kept = Set(graph.path(to: graph.canonical))
        let me = Data(publicKey.bytes)
        for nodeID in oldPath where !kept.contains(nodeID) {
            guard let node = graph.nodes[nodeID], node.commit?.key.committer == me,
                  let parent = node.parent.flatMap({ graph.nodes[$0] }) else { continue }
            reissueLost(before: parent.mls, ours: before.mls, winner: engine.state, session: before, into: &applied)
            return
        }
    }

    /// Does what the engine's outputs say, before its rows are written: messages stored and shown,
    /// system lines for the changes commits and branch switches made, messages of a branch the
    /// group left marked invalidated, our messages the engine made again readied for delivery.
    /// `before` is the session before the input; `carried` the bytes the event carried (the
    /// message it carried is stored with its id).
    func takeOutputs(
        _ outputs: [EngineOutput], engine: GroupEngine, before: GroupSession, event: Event?, carried: Data?
    ) throws -> Applied {
        let id = before.id
        var applied = Applied(group: id, outcome: .processed)
        let after = engine.metadata
        let carriedDigest = carried.map { Data(SHA256.hash(data: $0)) }
        var shown = before.metadata
        // The session as the input left it (its selected state), for the messages it shows.
        var view = before
        view.mls = engine.state
        for output in outputs {
            switch output {
            case .application(let sender, let rumor, let epoch, let digest, let leaf):
                try keepReceived(
                    rumor, sender: sender, leaf: leaf, epoch: epoch, outerEventID: digest == carriedDigest ? event?.id : nil,
                    session: view)
            case .commitApplied(let summary, let committer, let epoch):
                noteDeviceLeaves(summary, in: id)
                // The group-data lines go from what was shown to where this input left the group,
                // once (a second commit of the same input shows its members' lines only).
                if let event {
                    noteMembershipChanges(summary, committer: committer, previous: shown, current: after, commit: event, group: id)
                }
                shown = after
                logger.info("commit from \(committer.hex) moved \(id) to epoch \(epoch)")
                applied.committed.append((epoch, committer))
                applied.newEpoch = true
                if summary.removedSelf || after?.disbanded == true { applied.closed = true }
            case .branchSwitched(let from, let to, let invalidated):
                logger.notice("\(id) left its branch at epoch \(from) for the one at epoch \(to) (\(engine.lastDecision?.decisiveRule?.rawValue ?? "selection"))")
                invalidateReceived(invalidated, in: id)
                // What the group shows now is the winning branch's data (issue 24, N6).
                if let event, let previous = shown, let after, previous != after,
                   let committer = engine.graph.tip.commit.flatMap({ try? PublicKey(bytes: $0.key.committer) }) {
                    store(Self.groupDataNotices(from: previous, to: after, actor: committer), commit: event, group: id)
                }
                shown = after
                applied.newEpoch = true
                applied.switchedBranch = true
                if !engine.isActive || after?.disbanded == true { applied.closed = true }
            case .publish(let bytes, let rumor):
                if let made = try remade(bytes, rumor: rumor, engine: engine, session: view) { applied.made.append(made) }
            case .proposalStored:
                applied.newProposal = true
                applied.proposalToCommit = engine.hasCommittableSelfRemoves
            case .dropped(let why):
                logger.info("group message of \(id) dropped by the engine: \(why)")
            case .parked, .deferred, .duplicate:
                continue
            }
        }
        if let after { applied.adopt(after, over: before.stored) }
        return applied
    }

    /// The kind-445 envelope of `message`, an MLS message of ours made on the engine's state
    /// `node`: sealed with that state's key, under that state's `h` (MIP-03).
    func engineEvent(
        _ message: MLSMessage, engine: inout GroupEngine, at node: BranchGraph.NodeID, createdAt: Int64, expiration: Int64? = nil
    ) throws -> Event {
        guard let h = engine.graph.nodes[node].flatMap({ engine.rules.metadataIfValid($0.mls.extensions) })?.nostrGroupID,
              let key = engine.eventKey(at: node) else { throw MarmotClientError.encoding("no event key for the state \(node)") }
        do {
            return try engine.rules.groupEvent(message, nostrGroupID: h, key: key, createdAt: createdAt, expiration: expiration)
        } catch {
            throw MarmotClientError.encoding("group event: \(error)")
        }
    }

    /// A message of ours the engine made again on the branch that won (or a send it queued behind
    /// our commit): sealed for the state it was made on (the selected state of `engine`, the engine
    /// after the input), the outbox and our stored message take the new envelope; delivered once
    /// this input's rows are written.
    private func remade(_ bytes: Data, rumor: EventID, engine: GroupEngine, session: GroupSession) throws -> (StoredMessage, Event)? {
        guard var message = try store.message(mlsGroupID: session.id, rumorID: rumor) else {
            logger.warning("a message of ours made again in \(session.id) is not stored; not sent")
            return nil
        }
        var engine = engine
        let event = try engineEvent(
            try MLSMessage(tlsSerialized: bytes), engine: &engine, at: engine.graph.canonical,
            createdAt: session.rules.outerCreatedAt(inner: message.createdAt, now: now()), expiration: message.expiresAt)
        message.deliveryState = .pending
        message.outerEventID = event.id
        message.epoch = engine.epoch
        try store.saveMessage(message)
        try store.saveOutboxEvent(event, mlsGroupID: session.id, rumorID: rumor)
        return (message, event)
    }
}

// MARK: Outbound

extension MarmotClient {
    /// Encrypts `rumor` of ours on the group's selected state. On the engine it is made there (it
    /// notes the message as ours on that branch, to make it again should the branch lose); for a v1
    /// group on a copy of the state. Either way `keep` writes what changed, among the caller's
    /// writes in one unit of work.
    func sealOwn(_ rumor: ChatRumor, in session: GroupSession) throws -> (message: MLSMessage, key: GroupEventKey, keep: () throws -> Void) {
        let id = session.id
        return try ownMessage(
            in: session, onEngine: { engine throws(EngineError) in try engine.encrypt(rumor) },
            onState: { mls in try mls.encrypt(rumor.plaintext) }, keep: { mls in try self.persistRatchets(mls, for: id) })
    }

    /// A handshake or application message of ours made on the group's selected state: by the
    /// engine (`onEngine`) or, for a v1 group, on a copy of its state (`onState`); the returned
    /// closure writes the engine's rows or that state (with `keep`) among the caller's writes.
    private func ownMessage(
        in session: GroupSession, onEngine: (inout GroupEngine) throws(EngineError) -> Data,
        onState: (inout MLSGroup) throws -> MLSMessage, keep: @escaping (MLSGroup) throws -> Void
    ) throws -> (message: MLSMessage, key: GroupEventKey, keep: () throws -> Void) {
        let id = session.id
        guard var engine = engines[id] else {
            var mls = session.mls
            let message: MLSMessage
            do {
                message = try onState(&mls)
            } catch let error as GroupError {
                throw MarmotClientError.mls(error)
            }
            return (message, try session.currentEventKey(), { [mls] in try keep(mls) })
        }
        let bytes: Data
        do {
            bytes = try onEngine(&engine)
        } catch .notAMember {
            throw MarmotClientError.chatInactive(id)
        } catch {
            throw MarmotClientError.encoding("\(error)")
        }
        guard let key = engine.eventKey(at: engine.graph.canonical) else { throw MarmotClientError.encoding("no event key for the selected state") }
        let message = try MLSMessage(tlsSerialized: bytes)
        // The engine's rows are written with the caller's writes, in its unit of work (review
        // §3.3-e); the engine itself moves now, so the next message is made after this one.
        let changes = engine.takeChanges()
        let store = try engineStore
        engines[id] = engine
        sessions[id]?.mls = engine.state
        return (message, key, { try store.saveEngineChanges(changes, mlsGroupID: id) })
    }

    /// Publishes a commit of ours built on an engine group's selected state (`mls`: that state as
    /// building left it), made unconfirmed in the engine (and its rows) first: confirmed once a
    /// relay took it, its effects taken like another member's (messages the engine made again
    /// delivered, the row and pool following the new state) and its system lines stored;
    /// abandoned when every relay refused it (MIP-03: it never happened); left unconfirmed when
    /// relays did not answer (a relay may hold it: published again at the next start, adopted
    /// when a relay gives it back), and `.notPublished` is thrown.
    func publishEngineCommit(_ pending: PendingCommit, from mls: MLSGroup, session: GroupSession) async throws -> CommitOutcome {
        let id = session.id
        guard var engine = engines[id] else { throw MarmotClientError.unknownChat(id) }
        let own: OwnCommit
        do {
            // The engine runs on it the `authorize` every member runs: a commit they would all
            // drop is never published (it would leave us alone on a branch of our own).
            own = try engine.own(pending, madeFrom: mls)
        } catch .refused(let why) {
            throw MarmotClientError.unauthorized(why)
        } catch {
            throw MarmotClientError.encoding("\(error)")
        }
        let event = try engineEvent(pending.message, engine: &engine, at: own.parent, createdAt: now())
        // Not recorded as processed: a relay that stores it and never answers gives it back, and
        // the engine adopts it then (once confirmed, it is a duplicate the engine drops).
        try storage { try engineStore.saveEngineChanges(engine.takeChanges(), mlsGroupID: id) }
        engines[id] = engine
        unconfirmedCommits[own.key] = (own, event, session.metadata)
        sessions[id]?.mls = engine.state
        reportConvergence(id)
        let result = await pool.publish(event, to: route(id))
        guard result.isSent else {
            if result.results.values.contains(.timedOut) {
                logger.warning("commit for \(id) epoch \(own.key.sourceEpoch) unconfirmed; kept waiting")
            } else {
                logger.warning("commit for \(id) epoch \(own.key.sourceEpoch) refused by every relay; abandoned")
                let before = try self.session(id)
                unconfirmedCommits[own.key] = nil
                _ = try takeInput(id, before: before, event: nil) { engine in engine.abandon(own) }
            }
            reportConvergence(id)
            throw MarmotClientError.notPublished(result)
        }
        let chat = try takeOwnCommit(own, event: event, session: try self.session(id))
        return CommitOutcome(chat: chat, epoch: chat.epoch, publish: result)
    }

    /// Confirms our commit `own` that a relay took: the engine adopts it, the outputs of settling
    /// are taken, the commit's system lines stored, and the pool follows the new data.
    @discardableResult
    func takeOwnCommit(_ own: OwnCommit, event: Event, session before: GroupSession) throws -> Chat {
        let id = before.id
        unconfirmedCommits[own.key] = nil
        let (_, applied) = try takeInput(id, before: before, event: event) { engine in engine.confirm(own) }
        let after = engines[id]?.metadata
        store(
            Self.notices(for: own.pending.summary, committer: publicKey, previous: before.metadata, current: after), commit: event,
            group: id)
        noteOwnCommit(id)
        if after != before.metadata || applied.closed || !applied.made.isEmpty {
            // Our commit closed the group or may have changed its relays or `h` (the pool
            // follows), or messages the engine made on the new state wait to be delivered.
            Task { await self.takeEffects(of: applied) }
        }
        reportConvergence(id)
        let chat = try self.session(id).chat
        emit(.commitApplied(chat, epoch: chat.epoch, committer: publicKey))
        return chat
    }

    /// Publishes again, after a restart, the commits of ours an engine group left unconfirmed, and
    /// confirms each a relay takes (one no relay takes keeps waiting: it may be on a relay).
    func resumeEngineCommits(_ id: GroupID) async {
        guard var engine = engines[id] else { return }
        for commit in engine.unconfirmed {
            guard let session = sessions[id],
                  let event = try? engineEvent(try MLSMessage(tlsSerialized: commit.bytes), engine: &engine, at: commit.parent, createdAt: now())
            else { continue }
            let result = await pool.publish(event, to: route(id))
            guard result.isSent else {
                logger.warning("our unconfirmed commit in \(id) was not published again; it waits")
                continue
            }
            do {
                var (_, applied) = try takeInput(id, before: session, event: event) { engine in engine.confirm(commit) }
                applied.committed.append((commit.newGroup.epoch, publicKey))
                logger.info("our unconfirmed commit in \(id) confirmed after restart")
                await takeEffects(of: applied)
            } catch {
                logger.warning("our unconfirmed commit in \(id) not taken: \(error)")
            }
            engine = engines[id] ?? engine
        }
        reportConvergence(id)
    }
}

extension MarmotClient {
    /// Our SelfRemove proposal (leaving a group: another member commits it), made on the selected
    /// state (`ownMessage`).
    func proposeOwnLeave(in session: GroupSession) throws -> (message: MLSMessage, key: GroupEventKey, keep: () throws -> Void) {
        let id = session.id
        return try ownMessage(
            in: session, onEngine: { engine throws(EngineError) in try engine.proposeLeave() },
            onState: { mls in try mls.proposeSelfRemove() }, keep: { mls in try self.persist(mls, for: id) })
    }

    /// Puts group `id` on a new engine anchored at the state its session holds (a group just
    /// founded, a Welcome taken, an old state put back), replacing any engine it had; nothing for a
    /// v1 group.
    func anchorEngine(_ id: GroupID) throws {
        guard let session = sessions[id], session.rules.settlesByEvidence else { return }
        var row = session.stored
        row.setState(session.mls)
        var engine = try engineStore.moveToEngine(row, rules: session.rules, keys: keys)
        engine.limits = engineLimits
        engines[id] = engine
        sessions[id]?.stored.mlsState = Data()
        sessions[id]?.stored.mlsRatchets = nil
    }

    /// Forgets group `id`'s engine (the group was deleted or declined; its rows went with it).
    func dropEngine(_ id: GroupID) { engines[id] = nil }
}
