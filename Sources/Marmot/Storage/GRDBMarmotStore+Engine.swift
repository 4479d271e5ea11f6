import Foundation
import GRDB
import MLS
import Nostr

/// A group engine kept in rows (migration `v8-group-engines`, issue 24): what `EngineChanges` say
/// moved is written in one transaction, and `EngineRows` are read back to re-open the engine.
///
/// Per application message in a settled group this rewrites one state's secret trees and adds a
/// digest row (noting where the message showed), not the engine's whole record. Every value is sealed to
/// its group, table, column and row; states, secret trees, witnesses and the rest carry versions
/// recorded in the store's sealed version record (`GroupVersions`), so an older copy of any of
/// them put back is refused (`StorageError.rollback`), as for groups. Digest rows are sealed to
/// their group and hash but not versioned: one deleted lets a replay reach the engine, whose MLS
/// state refuses it (its key is gone, RFC 9420 §9.2), and a message it showed is no longer marked
/// if its branch loses.
extension GRDBMarmotStore {
    /// Writes `changes` of the engine of `mlsGroupID`; the first write of an engine must carry its
    /// rest (`GroupEngine.takeChanges()` on a new engine does). Fails with `.unknownGroup` when
    /// the group has no row.
    package func saveEngineChanges(_ changes: EngineChanges, mlsGroupID: GroupID) throws(StorageError) {
        guard !changes.isEmpty else { return }
        let ref = codec.groupRef(mlsGroupID.bytes)
        let codec = self.codec
        try write { db in
            var versions = try Self.groupVersions(db, codec)
            try Self.writeEngine(db, ref, changes, codec, &versions)
            try Self.saveGroupVersions(db, codec, versions)
        }
    }

    /// Moves a group kept as one MLS state in its row into an engine's rows, in one transaction:
    /// the engine's rows are written and the group's row loses its state (`group`, with
    /// `mlsState` empty), so no copy of secrets the engine deletes stays behind (RFC 9420 §9.2).
    /// An engine the group had is replaced (a Welcome back into a group we had left): its rows go,
    /// and the new ones take versions above theirs, so none of the old can be put back.
    package func moveGroupState(to changes: EngineChanges, group: StoredGroup) throws(StorageError) {
        let ref = codec.groupRef(group.mlsGroupID.bytes)
        let codec = self.codec
        var row = group
        row.mlsState = Data()
        row.mlsRatchets = nil
        try write { db in
            var versions = try Self.groupVersions(db, codec)
            try db.execute(sql: "DELETE FROM engines_v2 WHERE group_ref = ?", arguments: [ref])
            try Self.writeGroup(db, row, codec, &versions)
            try Self.writeEngine(db, ref, changes, codec, &versions)
            try Self.saveGroupVersions(db, codec, versions)
        }
    }

    /// A group kept as one MLS state in its row (before issue 24's engine, or just founded, joined or
    /// put back), moved onto a new engine anchored at that state (`moveGroupState`). A fork a v2
    /// client held open before the engine is not carried over: the engine learns branches from
    /// the group's events.
    package func moveToEngine(_ stored: StoredGroup, rules: any GroupRules, keys: Keys) throws -> GroupEngine {
        var engine = GroupEngine(rules: rules, keys: keys, state: try stored.decodedState())
        try moveGroupState(to: engine.takeChanges(), group: stored)
        return engine
    }

    /// The rows of the engine of `mlsGroupID`, nil when none was written.
    package func engineRows(mlsGroupID: GroupID) throws(StorageError) -> EngineRows? {
        let ref = codec.groupRef(mlsGroupID.bytes)
        let codec = self.codec
        return try read { db in try Self.readEngine(db, ref, codec, try Self.groupVersions(db, codec)) }
    }

    // MARK: Rows

    static func writeEngine(
        _ db: Database, _ ref: Data, _ changes: EngineChanges, _ codec: StoreCodec, _ versions: inout GroupVersions
    ) throws {
        let engineRef = codec.lookup.hash(.engine, ref)
        if let rest = changes.rest {
            guard try Int.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM groups_v2 WHERE group_ref = ?"), arguments: [ref]) != nil
            else { throw StorageError.unknownGroup("engine of a group without a row") }
            let version = (versions[engineRef] ?? 0) + 1
            try db.cachedStatement(sql: """
                INSERT INTO engines_v2 (group_ref, version, sealed_rest) VALUES (?, ?, ?)
                ON CONFLICT(group_ref) DO UPDATE SET version = excluded.version, sealed_rest = excluded.sealed_rest
                """).execute(arguments: [ref, version, try codec.cipher.seal(rest, context("engines", "rest", ref, nil, version))])
            versions[engineRef] = version
        } else if versions[engineRef] == nil {
            throw StorageError.corruptRow("engines: changes of an engine never written whole")
        }
        for id in changes.removed {
            try db.cachedStatement(sql: "DELETE FROM engine_held_v2 WHERE group_ref = ? AND node = ?").execute(arguments: [ref, id])
            try db.cachedStatement(sql: "DELETE FROM engine_states_v2 WHERE group_ref = ? AND node = ?").execute(arguments: [ref, id])
            try db.cachedStatement(sql: "DELETE FROM engine_nodes_v2 WHERE group_ref = ? AND node = ?").execute(arguments: [ref, id])
            forgetVersions(ofState: id, ref, codec, &versions)
        }
        for node in changes.states {
            let stateRef = nodeRef(codec, .engineState, ref, node.id)
            let version = (versions[stateRef] ?? 0) + 1
            try db.cachedStatement(sql: """
                INSERT INTO engine_states_v2 (group_ref, node, version, sealed_state, sealed_link) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(group_ref, node) DO UPDATE SET version = excluded.version, sealed_state = excluded.sealed_state,
                    sealed_link = excluded.sealed_link
                """).execute(arguments: [
                    ref, node.id, version, try codec.cipher.seal(node.state, context("engine_states", "state", ref, node.id, version)),
                    try codec.cipher.seal(EngineRecord.encodedLink(node), context("engine_states", "link", ref, node.id, version)),
                ])
            versions[stateRef] = version
            let ratchetsRef = nodeRef(codec, .engineRatchets, ref, node.id), witnessesRef = nodeRef(codec, .engineWitnesses, ref, node.id)
            let ratchetVersion = (versions[ratchetsRef] ?? 0) + 1, witnessVersion = (versions[witnessesRef] ?? 0) + 1
            try db.cachedStatement(sql: """
                INSERT INTO engine_nodes_v2 (group_ref, node, ratchet_version, sealed_ratchets, witness_version, sealed_witnesses)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(group_ref, node) DO UPDATE SET ratchet_version = excluded.ratchet_version,
                    sealed_ratchets = excluded.sealed_ratchets, witness_version = excluded.witness_version,
                    sealed_witnesses = excluded.sealed_witnesses
                """).execute(arguments: [
                    ref, node.id, ratchetVersion,
                    try codec.cipher.seal(node.ratchets, context("engine_nodes", "ratchets", ref, node.id, ratchetVersion)),
                    witnessVersion,
                    try codec.cipher.seal(
                        EngineRecord.encoded(node.witnesses), context("engine_nodes", "witnesses", ref, node.id, witnessVersion)),
                ])
            versions[ratchetsRef] = ratchetVersion
            versions[witnessesRef] = witnessVersion
        }
        for (id, ratchets) in changes.ratchets {
            let ratchetsRef = nodeRef(codec, .engineRatchets, ref, id)
            let version = (versions[ratchetsRef] ?? 0) + 1
            try db.cachedStatement(sql: "UPDATE engine_nodes_v2 SET ratchet_version = ?, sealed_ratchets = ? WHERE group_ref = ? AND node = ?")
                .execute(arguments: [version, try codec.cipher.seal(ratchets, context("engine_nodes", "ratchets", ref, id, version)), ref, id])
            guard db.changesCount == 1 else { throw StorageError.corruptRow("engine_nodes: secret trees of a state never written") }
            versions[ratchetsRef] = version
        }
        for (id, witnesses) in changes.witnesses {
            let witnessesRef = nodeRef(codec, .engineWitnesses, ref, id)
            let version = (versions[witnessesRef] ?? 0) + 1
            let sealed = try codec.cipher.seal(EngineRecord.encoded(witnesses), context("engine_nodes", "witnesses", ref, id, version))
            try db.cachedStatement(sql: "UPDATE engine_nodes_v2 SET witness_version = ?, sealed_witnesses = ? WHERE group_ref = ? AND node = ?")
                .execute(arguments: [version, sealed, ref, id])
            guard db.changesCount == 1 else { throw StorageError.corruptRow("engine_nodes: witnesses of a state never written") }
            versions[witnessesRef] = version
        }
        try writeDigests(db, ref, changes, codec)
        try writeHeld(db, ref, changes.held, codec)
    }

    /// The held messages' rows (`EngineChanges.held`), in the order the changes happened: one per
    /// message, sealed to its group, node and place. Not versioned, as digest rows: one deleted
    /// or put back only changes whether a message of a competing branch shows if that branch wins.
    private static func writeHeld(_ db: Database, _ ref: Data, _ changes: [EngineChanges.HeldChange], _ codec: StoreCodec) throws {
        for change in changes {
            switch change {
            case .add(let node, let position, let message):
                try db.cachedStatement(sql: """
                    INSERT INTO engine_held_v2 (group_ref, node, position, sealed_value) VALUES (?, ?, ?, ?)
                    ON CONFLICT(group_ref, node, position) DO UPDATE SET sealed_value = excluded.sealed_value
                    """).execute(arguments: [
                        ref, node, position, try codec.cipher.seal(EngineRecord.encoded(message), heldContext(ref, node, position)),
                    ])
            case .forget(let node):
                try db.cachedStatement(sql: "DELETE FROM engine_held_v2 WHERE group_ref = ? AND node = ?").execute(arguments: [ref, node])
            }
        }
    }

    private static func heldContext(_ ref: Data, _ node: BranchGraph.NodeID, _ position: Int) -> SealContext {
        var row = ref
        withUnsafeBytes(of: UInt64(node).bigEndian) { row.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(position).bigEndian) { row.append(contentsOf: $0) }
        return SealContext("engine_held", "value", row: row)
    }

    /// The seen digests' rows: one per digest, holding where it showed when it is a shown
    /// message, so a message in a settled group adds one row.
    private static func writeDigests(_ db: Database, _ ref: Data, _ changes: EngineChanges, _ codec: StoreCodec) throws {
        func value(_ digest: Data, _ digestRef: Data, shownAt shown: ShownMessage?) throws -> Data {
            var value = digest
            if let shown {
                withUnsafeBytes(of: UInt32(shown.node).bigEndian) { value.append(contentsOf: $0) }
                value.append(contentsOf: shown.rumor.bytes)
            }
            return try codec.cipher.seal(value, SealContext("engine_seen", "value", row: ref + digestRef))
        }
        for digest in changes.seenForgotten {
            try db.cachedStatement(sql: "DELETE FROM engine_seen_v2 WHERE group_ref = ? AND digest_ref = ?")
                .execute(arguments: [ref, codec.lookup.hash(.engineDigest, digest)])
        }
        for (digest, epoch) in changes.seen {
            let digestRef = codec.lookup.hash(.engineDigest, digest)
            try db.cachedStatement(sql: """
                INSERT INTO engine_seen_v2 (group_ref, digest_ref, epoch, sealed_value) VALUES (?, ?, ?, ?)
                ON CONFLICT(group_ref, digest_ref) DO UPDATE SET epoch = excluded.epoch, sealed_value = excluded.sealed_value
                """).execute(arguments: [
                    ref, digestRef, Int64(bitPattern: epoch), try value(digest, digestRef, shownAt: changes.shown[digest]),
                ])
        }
        // Shown or no longer shown, seen before: only where it showed changes.
        let moved = changes.shown.filter { changes.seen[$0.key] == nil }.map { ($0.key, Optional($0.value)) }
            + changes.shownForgotten.subtracting(changes.seenForgotten).filter { changes.shown[$0] == nil }.map { ($0, ShownMessage?.none) }
        for (digest, shown) in moved {
            let digestRef = codec.lookup.hash(.engineDigest, digest)
            try db.cachedStatement(sql: "UPDATE engine_seen_v2 SET sealed_value = ? WHERE group_ref = ? AND digest_ref = ?")
                .execute(arguments: [try value(digest, digestRef, shownAt: shown), ref, digestRef])
            guard db.changesCount == 1 || shown == nil else { throw StorageError.corruptRow("engine_seen: a shown message never seen") }
        }
    }

    static func readEngine(_ db: Database, _ ref: Data, _ codec: StoreCodec, _ versions: GroupVersions) throws -> EngineRows? {
        guard let engine = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT version, sealed_rest FROM engines_v2 WHERE group_ref = ?"), arguments: [ref])
        else { return nil }
        let label = "engine of group \(Hex.encode(ref.prefix(8)))"
        var rows = EngineRows()
        let version: Int64 = engine["version"]
        guard versions[codec.lookup.hash(.engine, ref)] == version else { throw StorageError.rollback("\(label) (version \(version))") }
        rows.rest = try codec.cipher.open(engine["sealed_rest"], context("engines", "rest", ref, nil, version))

        let states = try Row.fetchAll(db, sql: """
            SELECT s.node, s.version, s.sealed_state, s.sealed_link, n.ratchet_version, n.sealed_ratchets, n.witness_version,
                n.sealed_witnesses
            FROM engine_states_v2 s JOIN engine_nodes_v2 n ON n.group_ref = s.group_ref AND n.node = s.node
            WHERE s.group_ref = ?
            """, arguments: [ref])
        for row in states {
            let id: Int = row["node"]
            let stateVersion: Int64 = row["version"], ratchetVersion: Int64 = row["ratchet_version"]
            let witnessVersion: Int64 = row["witness_version"]
            guard versions[nodeRef(codec, .engineState, ref, id)] == stateVersion,
                  versions[nodeRef(codec, .engineRatchets, ref, id)] == ratchetVersion,
                  versions[nodeRef(codec, .engineWitnesses, ref, id)] == witnessVersion
            else { throw StorageError.rollback("\(label) (state \(id))") }
            do {
                rows.states[id] = try EngineRecord.node(
                    id: id, link: try codec.cipher.open(row["sealed_link"], context("engine_states", "link", ref, id, stateVersion)),
                    state: try codec.cipher.open(row["sealed_state"], context("engine_states", "state", ref, id, stateVersion)),
                    ratchets: try codec.cipher.open(row["sealed_ratchets"], context("engine_nodes", "ratchets", ref, id, ratchetVersion)),
                    witnesses: try codec.cipher.open(
                        row["sealed_witnesses"], context("engine_nodes", "witnesses", ref, id, witnessVersion)))
            } catch let error as EngineRecordError {
                throw StorageError.corruptRow("engine_states: \(error)")
            }
        }
        for row in try Row.fetchAll(db, sql: "SELECT digest_ref, epoch, sealed_value FROM engine_seen_v2 WHERE group_ref = ?", arguments: [ref]) {
            let digestRef: Data = row["digest_ref"]
            let value = try codec.cipher.open(row["sealed_value"], SealContext("engine_seen", "value", row: ref + digestRef))
            // The digest, then for a shown message the state it opened at and its inner event's id.
            guard value.count == 32 || value.count == 68, codec.lookup.hash(.engineDigest, value.prefix(32)) == digestRef else {
                throw StorageError.corruptRow("engine_seen.value")
            }
            let digest = Data(value.prefix(32))
            rows.seen[digest] = UInt64(bitPattern: row["epoch"])
            if value.count == 68 {
                let node = Int(value.dropFirst(32).prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
                rows.shown[digest] = ShownMessage(node: node, rumor: try EventID(bytes: value.suffix(32)))
            }
        }
        for row in try Row.fetchAll(db, sql: "SELECT node, position, sealed_value FROM engine_held_v2 WHERE group_ref = ?", arguments: [ref]) {
            let node: Int = row["node"], position: Int = row["position"]
            do {
                rows.held[node, default: [:]][position] = try EngineRecord.heldMessage(
                    encoded: try codec.cipher.open(row["sealed_value"], heldContext(ref, node, position)))
            } catch let error as EngineRecordError {
                throw StorageError.corruptRow("engine_held: \(error)")
            }
        }
        return rows
    }

    /// Forgets the version records of the engine of the group `ref` (its rows go with the group's).
    static func forgetEngineVersions(_ db: Database, _ ref: Data, _ codec: StoreCodec, _ versions: inout GroupVersions) throws {
        for id in try Int.fetchAll(db, sql: "SELECT node FROM engine_states_v2 WHERE group_ref = ?", arguments: [ref]) {
            forgetVersions(ofState: id, ref, codec, &versions)
        }
        versions[codec.lookup.hash(.engine, ref)] = nil
    }

    /// Every row of an engine, as changes that write them all (to move an engine to another key).
    static func changesWritingAll(_ rows: EngineRows) -> EngineChanges {
        var changes = EngineChanges()
        changes.states = rows.states.values.sorted { $0.id < $1.id }
        changes.seen = rows.seen
        changes.shown = rows.shown
        changes.held = rows.held.sorted { $0.key < $1.key }.flatMap { node, messages in
            messages.sorted { $0.key < $1.key }.map { EngineChanges.HeldChange.add(node: node, position: $0.key, message: $0.value) }
        }
        changes.rest = rows.rest
        return changes
    }

    /// Forgets the version records of one state's three parts (state, secret trees, witnesses).
    private static func forgetVersions(
        ofState id: BranchGraph.NodeID, _ ref: Data, _ codec: StoreCodec, _ versions: inout GroupVersions
    ) {
        for domain in [LookupKey.Domain.engineState, .engineRatchets, .engineWitnesses] {
            versions[nodeRef(codec, domain, ref, id)] = nil
        }
    }

    /// The version record of one state's `domain` part.
    private static func nodeRef(_ codec: StoreCodec, _ domain: LookupKey.Domain, _ ref: Data, _ id: BranchGraph.NodeID) -> Data {
        var value = ref
        withUnsafeBytes(of: UInt64(id).bigEndian) { value.append(contentsOf: $0) }
        return codec.lookup.hash(domain, value)
    }

    /// The associated data of an engine's sealed value: its group, state (if any) and version.
    private static func context(_ table: String, _ column: String, _ ref: Data, _ id: BranchGraph.NodeID?, _ version: Int64) -> SealContext {
        var row = ref
        if let id { withUnsafeBytes(of: UInt64(id).bigEndian) { row.append(contentsOf: $0) } }
        withUnsafeBytes(of: version.bigEndian) { row.append(contentsOf: $0) }
        return SealContext(table, column, row: row)
    }
}
