import Foundation
import Marmot
import MLS
import Nostr

/// One scenario participant: its keys, its key packages, a `GroupEngine` per group, the
/// publications waiting for the scenario's acknowledgement, and what it has observed.
///
/// This is the runtime layer around the product engine (MDK's "runtime" over its "engine"): it
/// moves bytes between the bus and the engines and does nothing the engine should decide.
final class SimClient {
    /// A commit (or a group's founding) of ours on the bus, waiting for `acknowledge_outbound`.
    struct Publication {
        let label: String?
        let group: String
        let commit: OwnCommit
        let envelopes: [Int]
        let founding: Bool
    }

    struct Counts: Equatable {
        var messageReceived = 0, memberAdded = 0, memberRemoved = 0, epochChanged = 0, appInvalidated = 0
    }

    let label: String
    let keys: Keys
    var engines: [String: GroupEngine] = [:]
    /// What each engine's changes wrote so far (`restart()` re-opens from these).
    var rows: [String: EngineRows] = [:]
    private(set) var groupOrder: [String] = []
    private var keyPackages: [Data: (KeyPackage, KeyPackagePrivateMaterial)] = [:]
    var publications: [Publication] = []
    /// Group messages of a group this client has not joined yet (its Welcome is still on the way).
    private var waiting: [Bus.Envelope] = []
    var payloads: [String] = []
    var counts = Counts()
    var removed: [String] = []
    var added: [String] = []
    var epochChanges: [(from: UInt64, to: UInt64)] = []
    /// Every settled branch decision, per group.
    var decisions: [String: BranchDecision] = [:]
    let world: World

    init(label: String, world: World) {
        self.label = label
        self.world = world
        keys = ScenarioIdentity.keys(for: label)
    }

    var publicKey: PublicKey { keys.publicKey }

    func clearEvents() {
        payloads = []
        counts = Counts()
        removed = []
        added = []
        epochChanges = []
    }

    /// A fresh v2 key package for an inviter (the simulator's key package directory).
    func freshKeyPackage() throws -> (KeyPackage, ref: Data) {
        let created = try V2KeyPackage.create(keys: keys, proofCreatedAt: 1_700_000_000)
        let ref = Data(CipherSuiteProvider.mls128X25519.keyPackageRef(encodedKeyPackage: created.keyPackage.tlsSerialized).bytes)
        keyPackages[ref] = (created.keyPackage, created.privateMaterial)
        return (created.keyPackage, ref)
    }

    func adopt(_ engine: GroupEngine, as group: String) {
        engines[group] = engine
        groupOrder.removeAll { $0 == group }
        groupOrder.append(group)
    }

    /// The group a step without `in_group` means: the named one, else the newest.
    func engineLabel(_ group: String) -> String? {
        engines[group] != nil ? group : groupOrder.last
    }

    // MARK: Ticking

    /// Processes the mailbox, settles every group, auto-commits waiting SelfRemoves.
    func tick() {
        let mail = world.bus.takeMailbox(label)
        let retry = waiting
        waiting = []
        for envelope in retry + mail { handle(envelope) }
        for group in groupOrder { settle(group) }
        autoCommit()
        // Messages that waited for a Welcome processed in this tick.
        if !waiting.isEmpty && waiting.count < retry.count + mail.count {
            let again = waiting
            waiting = []
            for envelope in again { handle(envelope) }
            for group in groupOrder { settle(group) }
        }
    }

    func settle(_ group: String) {
        guard var engine = engines[group] else { return }
        let outputs = engine.settle()
        engines[group] = engine
        apply(outputs, group: group)
        if let decision = engine.lastDecision { decisions[group] = decision }
    }

    private func handle(_ envelope: Bus.Envelope) {
        switch envelope.kind {
        case .welcome(let recipient, let ref):
            guard recipient == label else { return }
            join(envelope.bytes, keyPackageRef: ref, sender: envelope.sender)
        case .commit, .proposal, .application:
            guard let message = try? MLSMessage(tlsSerialized: envelope.bytes),
                  let header = try? MLSGroup.header(of: message) else {
                world.log("\(label): dropped an envelope that is not a group message")
                return
            }
            guard let group = engines.first(where: { $0.value.state.groupID == header.0 })?.key else {
                if waiting.count < 1024 { waiting.append(envelope) }
                return
            }
            var engine = engines[group]!
            let before = engine.epoch
            let outputs = engine.receive(envelope.bytes)
            engines[group] = engine
            apply(outputs, group: group, previousEpoch: before)
        }
    }

    private func join(_ bytes: Data, keyPackageRef: Data, sender: String) {
        guard let (keyPackage, material) = keyPackages[keyPackageRef] else {
            world.log("\(label): a Welcome for a key package we do not have")
            return
        }
        guard let message = try? MLSMessage(tlsSerialized: bytes), case .welcome(let welcome) = message.body else { return }
        do {
            let engine = try GroupEngine.join(
                rules: V2GroupRules(), keys: keys, welcome: welcome, keyPackage: keyPackage, privateMaterial: material,
                sender: world.client(sender).publicKey)
            keyPackages[keyPackageRef] = nil
            adopt(engine, as: world.groupLabel(of: engine.state.groupID) ?? "default")
        } catch {
            world.log("\(label): refused or failed a Welcome: \(error)")
        }
    }

    /// Applies what an engine reported to this client's observations, and re-sends our messages of
    /// an abandoned branch.
    func apply(_ outputs: [EngineOutput], group: String, previousEpoch: UInt64? = nil) {
        var epoch = previousEpoch ?? engines[group]?.epoch ?? 0
        for output in outputs {
            switch output {
            case .application(_, let rumor, _, _, _):
                payloads.append(rumor.content)
                counts.messageReceived += 1
            case .commitApplied(let summary, _, let newEpoch):
                counts.epochChanged += 1
                counts.memberAdded += summary.added.count
                counts.memberRemoved += summary.removed.count
                added += summary.added.compactMap { world.label(of: $0.credential) }
                removed += summary.removed.compactMap { world.label(of: $0.credential) }
                if newEpoch != epoch { epochChanges.append((epoch, newEpoch)) }
                epoch = newEpoch
            case .branchSwitched(let from, let to, let invalidated):
                counts.appInvalidated += invalidated.count
                if from != to {
                    epochChanges.append((from, to))
                    counts.epochChanged += 1
                }
                epoch = to
            case .publish(let bytes, _):
                world.bus.send(from: label, kind: .application, bytes: bytes, publication: nil)
            case .proposalStored, .parked, .deferred, .duplicate:
                break
            case .dropped(let reason):
                world.log("\(label)/\(group): dropped: \(reason)")
            }
        }
    }

    // MARK: Own changes

    /// Builds a commit with `build` and puts it on the bus (with Welcomes for `invitees`).
    func publish(
        group: String, label publication: String?, invitees: [SimClient] = [], founding: Bool = false,
        build: (inout GroupEngine, [KeyPackage]) throws -> OwnCommit
    ) throws {
        guard var engine = engines[group] else { throw VectorError.unknown("\(label) is not in group \(group)") }
        var packages: [(KeyPackage, Data, String)] = []
        for invitee in invitees {
            let (package, ref) = try invitee.freshKeyPackage()
            packages.append((package, ref, invitee.label))
        }
        let own = try build(&engine, packages.map(\.0))
        engines[group] = engine
        var envelopes: [Int] = []
        if !founding {
            envelopes.append(world.bus.send(from: label, kind: .commit, bytes: own.bytes, publication: publication))
        }
        if let welcome = own.pending.welcomeMessage {
            for (_, ref, invitee) in packages {
                envelopes.append(world.bus.send(
                    from: label, kind: .welcome(recipient: invitee, keyPackage: ref), bytes: welcome.tlsSerialized,
                    publication: publication))
            }
        }
        publications.append(Publication(label: publication, group: group, commit: own, envelopes: envelopes, founding: founding))
    }

    /// Acknowledges publications (one by label, or all): accepted ones are adopted, refused ones
    /// retracted from the bus and forgotten.
    func acknowledge(_ publication: String?, accepted: Bool) -> [(String?, Bool)] {
        let matching = publications.filter { publication == nil || $0.label == publication }
        publications.removeAll { publication == nil || $0.label == publication }
        var results: [(String?, Bool)] = []
        for item in matching {
            if accepted {
                guard var engine = engines[item.group] else { continue }
                let before = engine.epoch
                let outputs = engine.confirm(item.commit)
                engines[item.group] = engine
                if !item.founding {
                    removed += item.commit.pending.summary.removed.compactMap { world.label(of: $0.credential) }
                    added += item.commit.pending.summary.added.compactMap { world.label(of: $0.credential) }
                    if engine.epoch != before {
                        epochChanges.append((before, engine.epoch))
                        counts.epochChanged += 1
                    }
                }
                apply(outputs, group: item.group, previousEpoch: engine.epoch)
                if let decision = engine.lastDecision { decisions[item.group] = decision }
                results.append((item.label, true))
            } else {
                if !world.bus.retract(item.envelopes) { world.log("\(label): a refused publication already reached a mailbox") }
                if var engine = engines[item.group] {
                    let outputs = engine.abandon(item.commit)
                    engines[item.group] = engine
                    apply(outputs, group: item.group)
                }
                results.append((item.label, false))
            }
        }
        return results
    }

    /// Others' SelfRemoves waiting on a group are committed by us (MDK's auto-committer), once.
    private func autoCommit() {
        for group in groupOrder {
            guard let engine = engines[group], engine.isActive, engine.hasCommittableSelfRemoves,
                  !publications.contains(where: { $0.group == group }) else { continue }
            do {
                try publish(group: group, label: nil) { engine, _ in try engine.commit(selfRemovesOnly: true) }
            } catch {
                world.log("\(label)/\(group): cannot commit the pending SelfRemove: \(error)")
            }
        }
    }

    func send(_ content: String, group: String) {
        guard let name = engineLabel(group), var engine = engines[name] else {
            world.log("\(label): no group to send in")
            return
        }
        do {
            let disposition = try engine.send(content, createdAt: 1_700_000_000)
            engines[name] = engine
            if case .published(let bytes) = disposition {
                world.bus.send(from: label, kind: .application, bytes: bytes, publication: nil)
            }
        } catch {
            world.log("\(label): cannot send: \(error)")
        }
    }

    /// Re-opens every group from the rows its engine's changes were written to (`EngineRows`, as a
    /// store keeps them), as after a process restart: what the rows do not keep (the event log, the
    /// last decision) is gone. The rows must hold the engine's whole record, or the runner stops.
    func restart() throws {
        for (group, var engine) in engines {
            rows[group, default: EngineRows()].apply(engine.takeChanges())
            let record = try rows[group]!.record()
            guard record.encoded() == engine.record.encoded() else {
                throw VectorError.unknown("\(label): the rows written from \(group)'s engine do not hold its record")
            }
            engines[group] = try GroupEngine(rules: engine.rules, keys: engine.keys, record: record)
        }
        clearEvents()
    }

    /// Nothing waits: no publication, no mailbox, no parked or waiting message.
    var hasPendingWork: Bool {
        !publications.isEmpty || world.bus.mailboxCount(label) > 0 || !waiting.isEmpty || engines.values.contains { $0.status != .settled }
    }
}
