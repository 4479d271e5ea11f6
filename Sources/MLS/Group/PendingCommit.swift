import Foundation

/// A commit this member created, with the state it leads to (RFC 9420 §12.4.1).
///
/// Nothing is adopted yet: publish `message` (and `welcome`), then replace the group with
/// `newGroup` once the commit is accepted, or drop this value to stay in the current epoch.
public struct PendingCommit: Sendable, CustomStringConvertible {
    /// The Commit, framed per the configuration (PrivateMessage by default).
    public let message: MLSMessage
    /// The Welcome for the members the commit adds, its GroupInfo carrying the ratchet tree.
    public let welcome: Welcome?
    /// The signed GroupInfo of the new epoch, when a Welcome was built.
    public let groupInfo: GroupInfo?
    /// The group in the new epoch.
    public let newGroup: MLSGroup
    /// What the commit changes, as other members will see it.
    public let summary: CommitSummary

    public var description: String {
        "PendingCommit(epoch \(summary.epoch), +\(summary.added.count) -\(summary.removed.count), redacted)"
    }

    /// The Welcome wrapped as an MLSMessage, ready to send.
    public var welcomeMessage: MLSMessage? { welcome.map { MLSMessage(.welcome($0)) } }
}

/// A new signature key (and optionally credential and leaf extensions) for this member's leaf,
/// installed by a commit's UpdatePath (MDK's self_update_with_new_signer).
public struct SignerRotation: Sendable {
    public var signer: SignaturePrivateKey
    /// The credential of the new leaf; the current one when nil.
    public var credential: Credential?
    /// The extensions of the new leaf, replacing the current ones; the current ones when nil. Marmot
    /// v2 binds each leaf signature key to the account with a signed leaf component (0x8009), so a
    /// rotated signer needs a new one.
    public var leafExtensions: [Extension]?

    public init(signer: SignaturePrivateKey, credential: Credential? = nil, leafExtensions: [Extension]? = nil) {
        self.signer = signer
        self.credential = credential
        self.leafExtensions = leafExtensions
    }
}
