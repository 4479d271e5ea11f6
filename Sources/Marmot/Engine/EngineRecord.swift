import Foundation
import MarmotWire
import MLS
import Nostr

/// Everything a `GroupEngine` keeps about one group, as one value a store writes and reads back.
///
/// A restarted runtime re-opens the engine from it (`GroupEngine.init(rules:keys:record:)`), so
/// only what is here survives a restart: every retained state of every branch (MLS states,
/// RFC 9420 §16.8: nothing pruned comes back), the commits' ordering keys and the witnesses
/// selection weighs (MDK 0.9.14 keeps its branch graph and retained anchors in its store), what
/// was seen, parked, deferred or held, our sends made or queued, and our unconfirmed commits.
/// The MLS states hold the group's secrets: the record is not `Codable` and prints redacted.
package struct EngineRecord: Sendable, CustomStringConvertible {
    /// One state of the branch graph: its parent, its MLS state serialized in two parts
    /// (`MLSGroup.serializedApart()`: the secret trees apart, since an application message moves
    /// only them), the commit that led to it (nil for the anchor) and the application senders seen
    /// in its epoch on its branch.
    package struct Node: Sendable, Equatable {
        package var id: BranchGraph.NodeID
        package var parent: BranchGraph.NodeID?
        package var state: Data
        package var ratchets: Data
        package var key: CommitOrderingKey?
        package var witnesses: [AppWitness]
    }

    package var policy: ConvergencePolicy
    /// Parents before children (ids grow as states are added).
    package var nodes: [Node]
    package var canonical: BranchGraph.NodeID
    package var anchor: BranchGraph.NodeID
    package var nextID: BranchGraph.NodeID
    /// Digests of the messages seen, with their epochs.
    package var seen: [Data: UInt64]
    package var parked: [Data]
    package var deferred: [Data]
    package var lostInputs: Int
    package var held: [BranchGraph.NodeID: [HeldMessage]]
    package var shownAt: [Data: ShownMessage]
    package var sentAt: [BranchGraph.NodeID: [ChatRumor]]
    package var intents: [ChatRumor]
    package var awaiting: [Awaiting]
    /// Read from a row store whose rest still held the held messages (written before they had
    /// rows of their own): the engine writes them as rows, and the rest without them, at once.
    package private(set) var heldInRest = false

    /// A commit of ours built and not yet confirmed: the state it was made on, its ordering key,
    /// its MLSMessage bytes and the state it leads to (serialized whole), so that after a restart
    /// it is published again, or adopted when a relay gives it back (MIP-03: published before it
    /// is applied; one a relay took must not be lost).
    package struct Awaiting: Sendable, Equatable {
        package var parent: BranchGraph.NodeID
        package var key: CommitOrderingKey
        package var bytes: Data
        package var state: Data
    }

    package init(
        policy: ConvergencePolicy, nodes: [Node], canonical: BranchGraph.NodeID, anchor: BranchGraph.NodeID,
        nextID: BranchGraph.NodeID, seen: [Data: UInt64], parked: [Data], deferred: [Data], lostInputs: Int,
        held: [BranchGraph.NodeID: [HeldMessage]], shownAt: [Data: ShownMessage],
        sentAt: [BranchGraph.NodeID: [ChatRumor]], intents: [ChatRumor], awaiting: [Awaiting]
    ) {
        self.policy = policy
        self.nodes = nodes
        self.canonical = canonical
        self.anchor = anchor
        self.nextID = nextID
        self.seen = seen
        self.parked = parked
        self.deferred = deferred
        self.lostInputs = lostInputs
        self.held = held
        self.shownAt = shownAt
        self.sentAt = sentAt
        self.intents = intents
        self.awaiting = awaiting
    }

    package var description: String { "EngineRecord(\(nodes.count) states, contents redacted)" }

    /// The first byte of every record: a record of another format is refused, not misread.
    /// Format 3: the states in two parts, shown messages with their inner event ids, our
    /// unconfirmed commits whole. Formats 1 and 2 were written only by tests, never by the product.
    static let format: UInt8 = 3

    // MARK: Encoding

    /// The record's bytes: the format byte, the states, the seen digests, where shown messages
    /// opened, then the rest (`encodedRest()`); collections in a fixed order, so that the same
    /// engine always gives the same bytes.
    package func encoded() -> Data {
        var w = TLSWriter(capacity: 4096 + nodes.reduce(0) { $0 + $1.state.count + $1.ratchets.count })
        w.write(Self.format)
        w.writeVector { w in
            for node in nodes {
                w.write(UInt32(node.id))
                w.writeOptional(node.parent) { $0.write(UInt32($1)) }
                w.writeOpaque(node.state)
                w.writeOpaque(node.ratchets)
                w.writeOptional(node.key) { Self.write($1, to: &$0) }
                Self.write(node.witnesses, to: &w)
            }
        }
        w.writeVector { w in
            for (digest, epoch) in seen.sorted(by: { Self.ordered($0.key, $1.key) }) {
                w.writeOpaque(digest)
                w.write(epoch)
            }
        }
        w.writeVector { w in
            for (digest, shown) in shownAt.sorted(by: { Self.ordered($0.key, $1.key) }) {
                w.writeOpaque(digest)
                w.write(UInt32(shown.node))
                w.writeFixed(shown.rumor.bytes)
            }
        }
        writeRest(to: &w)
        return w.data
    }

    /// What a row store keeps in one value beside its rows of states, digests and shown messages
    /// (`EngineChanges.rest`): the policy, the tips, what is parked, deferred or held, and our
    /// sends and commits in flight.
    package func encodedRest() -> Data {
        var w = TLSWriter(capacity: 1024)
        w.write(Self.format)
        writeRest(to: &w)
        return w.data
    }

    /// A node's witnesses as a row store keeps them (`EngineChanges.witnesses`).
    package static func encoded(_ witnesses: [AppWitness]) -> Data {
        var w = TLSWriter(capacity: 8 + witnesses.count * 48)
        write(witnesses, to: &w)
        return w.data
    }

    private static func write(_ witnesses: [AppWitness], to w: inout TLSWriter) {
        w.writeVector { w in
            for witness in witnesses.sorted(by: Self.ordered) {
                w.write(witness.epoch)
                w.writeOpaque(witness.sender)
            }
        }
    }

    private func writeRest(to w: inout TLSWriter) {
        w.write(policy.maxRewindCommits)
        w.write(UInt32(policy.witnessQuorumSendersPerEpoch))
        w.write(UInt32(policy.witnessQuorumEpochs))
        w.write(policy.maxWitnessOverrideDepth)
        w.write(UInt32(canonical))
        w.write(UInt32(anchor))
        w.write(UInt32(nextID))
        w.writeVector { w in for bytes in parked { w.writeOpaque(bytes) } }
        w.writeVector { w in for bytes in deferred { w.writeOpaque(bytes) } }
        w.write(UInt32(clamping: lostInputs))
        w.writeVector { w in
            for (node, messages) in held.sorted(by: { $0.key < $1.key }) {
                w.write(UInt32(node))
                w.writeVector { w in for message in messages { Self.write(message, to: &w) } }
            }
        }
        w.writeVector { w in
            for (node, sends) in sentAt.sorted(by: { $0.key < $1.key }) {
                w.write(UInt32(node))
                w.writeVector { w in for send in sends { Self.write(send, to: &w) } }
            }
        }
        w.writeVector { w in for send in intents { Self.write(send, to: &w) } }
        w.writeVector { w in
            for commit in awaiting.sorted(by: { $0.key < $1.key }) {
                Self.write(commit.key, to: &w)
                w.write(UInt32(commit.parent))
                w.writeOpaque(commit.bytes)
                w.writeOpaque(commit.state)
            }
        }
    }

    private static func write(_ key: CommitOrderingKey, to w: inout TLSWriter) {
        w.write(key.sourceEpoch)
        w.write(UInt8(key.priority.rawValue))
        w.writeOpaque(key.committer)
        w.writeOpaque(key.digest)
    }

    private static func write(_ message: HeldMessage, to w: inout TLSWriter) {
        w.writeFixed(message.sender.bytes)
        w.writeOpaque(message.rumor.plaintext)
        w.write(message.epoch)
        w.writeOpaque(message.digest)
        w.write(message.leaf.rawValue)
    }

    /// One held message as a row store keeps it, in a row of its own (`EngineChanges.held`): a
    /// competing branch's traffic adds rows instead of rewriting the rest (issue 43, D2).
    package static func encoded(_ message: HeldMessage) -> Data {
        var w = TLSWriter(capacity: 128 + message.rumor.plaintext.count)
        write(message, to: &w)
        return w.data
    }

    /// A held message as `encoded(_:)` wrote it.
    package static func heldMessage(encoded data: Data) throws(EngineRecordError) -> HeldMessage {
        do {
            var r = TLSReader(data)
            let message = try readHeld(&r)
            try r.finish()
            return message
        } catch let error as EngineRecordError {
            throw error
        } catch {
            throw .damaged("held message: \(error)")
        }
    }

    private static func readHeld(_ r: inout TLSReader) throws -> HeldMessage {
        let sender = try PublicKey(bytes: try r.readFixed(32))
        return HeldMessage(
            sender: sender, rumor: try readRumor(&r, by: sender), epoch: try r.readUInt64(), digest: try readDigest(&r),
            leaf: LeafIndex(try r.readUInt32()))
    }

    /// A rumor of ours: its author, then `ChatRumor.plaintext`.
    private static func write(_ send: ChatRumor, to w: inout TLSWriter) {
        w.writeFixed(send.author.bytes)
        w.writeOpaque(send.plaintext)
    }

    private static func ordered(_ a: Data, _ b: Data) -> Bool { a.lexicographicallyPrecedes(b) }
    package static func ordered(_ a: AppWitness, _ b: AppWitness) -> Bool {
        a.epoch != b.epoch ? a.epoch < b.epoch : a.sender.lexicographicallyPrecedes(b.sender)
    }

    // MARK: Decoding

    /// Reads a record written by `encoded()`; throws on anything else (another format, a damaged
    /// or truncated record, a graph whose links do not hold), never crashes.
    package init(encoded data: Data) throws(EngineRecordError) {
        let (nodes, seen, shownAt, rest) = try Self.reading(data) { r in
            let nodes = try r.readVectorElements { r in
                Node(
                    id: Int(try r.readUInt32()), parent: try r.readOptional { Int(try $0.readUInt32()) },
                    state: try r.readOpaque(), ratchets: try r.readOpaque(), key: try r.readOptional(Self.readKey),
                    witnesses: try Self.readWitnesses(&r))
            }
            let seen = try Self.unique(try r.readVectorElements { r in (try Self.readDigest(&r), try r.readUInt64()) })
            let shownAt = try Self.unique(try r.readVectorElements { r in
                (try Self.readDigest(&r), ShownMessage(node: Int(try r.readUInt32()), rumor: try EventID(bytes: try r.readFixed(32))))
            })
            return (nodes, seen, shownAt, try Self.readRest(&r))
        }
        self.init(nodes: nodes, seen: seen, shownAt: shownAt, rest: rest)
        try check()
    }

    /// Reads `data` (its format byte first, then `body`, then nothing more); any failure but a
    /// record error is `.damaged`.
    private static func reading<T>(_ data: Data, _ body: (inout TLSReader) throws -> T) throws(EngineRecordError) -> T {
        do {
            var r = TLSReader(data)
            guard try r.readUInt8() == Self.format else { throw EngineRecordError.unknownFormat }
            let value = try body(&r)
            try r.finish()
            return value
        } catch let error as EngineRecordError {
            throw error
        } catch {
            throw .damaged("\(error)")
        }
    }

    /// A record from a row store's parts: its states, seen digests, shown messages and held
    /// messages (each node's in order), and its rest as `encodedRest()` wrote it.
    package init(
        nodes: [Node], seen: [Data: UInt64], shownAt: [Data: ShownMessage], held: [BranchGraph.NodeID: [HeldMessage]] = [:],
        rest data: Data
    ) throws(EngineRecordError) {
        var rest = try Self.reading(data) { r in try Self.readRest(&r) }
        let heldInRest = !rest.held.isEmpty
        rest.held.merge(held) { inRest, inRows in inRest + inRows }
        self.init(nodes: nodes.sorted { $0.id < $1.id }, seen: seen, shownAt: shownAt, rest: rest)
        self.heldInRest = heldInRest
        try check()
    }

    /// The fields `writeRest(to:)` writes, as read back.
    private struct Rest {
        var policy: ConvergencePolicy
        var canonical, anchor, nextID: BranchGraph.NodeID
        var parked, deferred: [Data]
        var lostInputs: Int
        var held: [BranchGraph.NodeID: [HeldMessage]]
        var sentAt: [BranchGraph.NodeID: [ChatRumor]]
        var intents: [ChatRumor]
        var awaiting: [Awaiting]
    }

    private init(nodes: [Node], seen: [Data: UInt64], shownAt: [Data: ShownMessage], rest: Rest) {
        self.init(
            policy: rest.policy, nodes: nodes, canonical: rest.canonical, anchor: rest.anchor, nextID: rest.nextID, seen: seen,
            parked: rest.parked, deferred: rest.deferred, lostInputs: rest.lostInputs, held: rest.held, shownAt: shownAt,
            sentAt: rest.sentAt, intents: rest.intents, awaiting: rest.awaiting)
    }

    private static func readRest(_ r: inout TLSReader) throws -> Rest {
        let policy = try ConvergencePolicy(
            maxRewindCommits: try r.readUInt64(), witnessQuorumSendersPerEpoch: Int(try r.readUInt32()),
            witnessQuorumEpochs: Int(try r.readUInt32()), maxWitnessOverrideDepth: try r.readUInt64())
        let canonical = Int(try r.readUInt32()), anchor = Int(try r.readUInt32()), nextID = Int(try r.readUInt32())
        let parked = try r.readVectorElements { try $0.readOpaque() }
        let deferred = try r.readVectorElements { try $0.readOpaque() }
        let lostInputs = Int(try r.readUInt32())
        let heldPairs = try r.readVectorElements { r in (Int(try r.readUInt32()), try r.readVectorElements(Self.readHeld)) }
        return Rest(
            policy: policy, canonical: canonical, anchor: anchor, nextID: nextID, parked: parked, deferred: deferred,
            lostInputs: lostInputs, held: try Self.unique(heldPairs),
            sentAt: try Self.unique(try r.readVectorElements { r in (Int(try r.readUInt32()), try r.readVectorElements(Self.readSend)) }),
            intents: try r.readVectorElements(Self.readSend),
            awaiting: try r.readVectorElements { r in
                let key = try Self.readKey(&r)
                return Awaiting(parent: Int(try r.readUInt32()), key: key, bytes: try r.readOpaque(), state: try r.readOpaque())
            })
    }

    /// A state's place in the graph as a row store keeps it beside the state: its parent and the
    /// commit that led to it.
    package static func encodedLink(_ node: Node) -> Data {
        var w = TLSWriter(capacity: 128)
        w.writeOptional(node.parent) { $0.write(UInt32($1)) }
        w.writeOptional(node.key) { Self.write($1, to: &$0) }
        return w.data
    }

    /// A state read back from a row store's parts: its link (`encodedLink(_:)`), its two state
    /// blobs and its witnesses (`encoded(_:)`).
    package static func node(
        id: BranchGraph.NodeID, link: Data, state: Data, ratchets: Data, witnesses: Data
    ) throws(EngineRecordError) -> Node {
        do {
            var r = TLSReader(link)
            let parent = try r.readOptional { Int(try $0.readUInt32()) }
            let key = try r.readOptional(Self.readKey)
            try r.finish()
            return Node(
                id: id, parent: parent, state: state, ratchets: ratchets, key: key,
                witnesses: try Self.witnesses(encoded: witnesses))
        } catch let error as EngineRecordError {
            throw error
        } catch {
            throw .damaged("state \(id): \(error)")
        }
    }

    /// A node's witnesses as `encoded(_:)` wrote them.
    package static func witnesses(encoded data: Data) throws(EngineRecordError) -> [AppWitness] {
        do {
            var r = TLSReader(data)
            let witnesses = try readWitnesses(&r)
            try r.finish()
            return witnesses
        } catch {
            throw .damaged("witnesses: \(error)")
        }
    }

    private static func readWitnesses(_ r: inout TLSReader) throws -> [AppWitness] {
        try r.readVectorElements { AppWitness(epoch: try $0.readUInt64(), sender: try $0.readOpaque()) }
    }

    /// The graph's links hold: ids unique and below `nextID`, every parent an earlier state, one
    /// root (the anchor), and every node named elsewhere present.
    private func check() throws(EngineRecordError) {
        var ids: Set<BranchGraph.NodeID> = []
        for node in nodes {
            guard node.id < nextID, ids.insert(node.id).inserted else { throw .damaged("state \(node.id) repeated or out of range") }
            if let parent = node.parent {
                guard parent < node.id, ids.contains(parent), node.key != nil else { throw .damaged("state \(node.id) has no earlier parent") }
            } else if node.id != anchor {
                throw .damaged("state \(node.id) has no parent and is not the anchor")
            }
        }
        let named = [canonical, anchor] + Array(held.keys) + shownAt.values.map(\.node) + Array(sentAt.keys)
        guard named.allSatisfy(ids.contains) else { throw .damaged("the record names a state it does not hold") }
    }

    private static func readKey(_ r: inout TLSReader) throws -> CommitOrderingKey {
        let epoch = try r.readUInt64()
        guard let priority = CommitPriority(rawValue: Int(try r.readUInt8())) else { throw EngineRecordError.damaged("commit priority") }
        let committer = try r.readOpaque()
        guard committer.count == 32 else { throw EngineRecordError.damaged("committer key length") }
        return CommitOrderingKey(sourceEpoch: epoch, priority: priority, committer: committer, digest: try readDigest(&r))
    }

    private static func readSend(_ r: inout TLSReader) throws -> ChatRumor {
        try readRumor(&r, by: try PublicKey(bytes: try r.readFixed(32)))
    }

    /// A rumor by `author` as `ChatRumor.plaintext` wrote it.
    private static func readRumor(_ r: inout TLSReader, by author: PublicKey) throws -> ChatRumor {
        try ChatRumor(plaintext: try r.readOpaque(), sender: author)
    }

    private static func readDigest(_ r: inout TLSReader) throws -> Data {
        let digest = try r.readOpaque()
        guard digest.count == 32 else { throw EngineRecordError.damaged("digest length") }
        return digest
    }

    /// A dictionary of `pairs`; a key that comes twice means the record is damaged.
    private static func unique<K: Hashable, V>(_ pairs: [(K, V)]) throws -> [K: V] {
        var result: [K: V] = [:]
        for (key, value) in pairs {
            guard result.updateValue(value, forKey: key) == nil else { throw EngineRecordError.damaged("a key repeated") }
        }
        return result
    }
}

/// An application message shown as canonical: the state it opened at (a branch that loses takes
/// it along) and its inner event's id, by which a runtime marks the message it stored as
/// invalidated when that branch loses (MDK 0.9.14 reports invalidated messages by id).
package struct ShownMessage: Sendable, Hashable {
    package var node: BranchGraph.NodeID
    package var rumor: EventID

    package init(node: BranchGraph.NodeID, rumor: EventID) {
        self.node = node
        self.rumor = rumor
    }
}

/// An application message that opened only on a branch that is not canonical, held until that
/// branch wins (then shown) or is pruned.
package struct HeldMessage: Sendable, Hashable {
    package let sender: PublicKey
    package let rumor: ChatRumor
    package let epoch: UInt64
    /// SHA-256 of the MLS message.
    package let digest: Data
    /// The sender's leaf in the state it opened on.
    package let leaf: LeafIndex
}

/// Why an engine record cannot be read.
package enum EngineRecordError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a record of this format (its first byte).
    case unknownFormat
    /// Truncated, damaged, or describing a graph that does not hold together.
    case damaged(String)
    /// A state in it does not read as an MLS group.
    case unreadableState(BranchGraph.NodeID)

    package var description: String {
        switch self {
        case .unknownFormat: "not a group engine record of a known format"
        case .damaged(let why): "damaged group engine record: \(why)"
        case .unreadableState(let id): "damaged group engine record: state \(id) does not read"
        }
    }
}
