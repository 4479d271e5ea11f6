import Crypto
import Foundation

/// How much authority a commit's shape needs, for ordering commits of one epoch.
///
/// A commit that needs an admin (adds, removals, group data) outranks one any member may make (a
/// pure self-update, SelfRemoves only), so a member cannot defeat an authorized removal by grinding
/// a concurrent self-update (MDK 0.9.14 `traits/src/engine.rs` `CommitOrderingPriority`).
public enum CommitPriority: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Needs admin authorization; ranks first.
    case privileged = 0
    /// Allowed to any member.
    case ordinary = 1

    public static func < (a: CommitPriority, b: CommitPriority) -> Bool { a.rawValue < b.rawValue }

    public var description: String { self == .privileged ? "privileged" : "ordinary" }
}

/// The order of competing commits of one epoch, from authenticated protocol evidence only.
///
/// Lower wins: source epoch, then priority, then the committer's account key bytes, then the
/// SHA-256 of the MLS message bytes. Nothing a relay can change (created_at, event id, the outer
/// signature) enters it, so every replica ranks the same commits the same way (MDK 0.9.14
/// `traits/src/engine.rs` lines 303-324, `CommitOrderingKey`). The digest comes last because the
/// committer chooses UpdatePath randomness and could grind it.
public struct CommitOrderingKey: Sendable, Hashable, Comparable {
    public let sourceEpoch: UInt64
    public let priority: CommitPriority
    /// The committer's authenticated identity (its Nostr account key, 32 bytes).
    public let committer: Data
    /// SHA-256 of the serialized MLSMessage.
    public let digest: Data

    public init(sourceEpoch: UInt64, priority: CommitPriority, committer: Data, digest: Data) {
        self.sourceEpoch = sourceEpoch
        self.priority = priority
        self.committer = committer
        self.digest = digest
    }

    /// The key of a commit from its MLS wire bytes.
    public init(sourceEpoch: UInt64, priority: CommitPriority, committer: Data, mlsBytes: Data) {
        self.init(sourceEpoch: sourceEpoch, priority: priority, committer: committer, digest: Data(SHA256.hash(data: mlsBytes)))
    }

    public static func < (a: CommitOrderingKey, b: CommitOrderingKey) -> Bool {
        if a.sourceEpoch != b.sourceEpoch { return a.sourceEpoch < b.sourceEpoch }
        if a.priority != b.priority { return a.priority < b.priority }
        if a.committer != b.committer { return a.committer.lexicographicallyPrecedes(b.committer) }
        return a.digest.lexicographicallyPrecedes(b.digest)
    }
}
