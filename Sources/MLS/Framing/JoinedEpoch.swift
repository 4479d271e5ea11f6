import Foundation

/// What a new member learns from a Welcome it could open and verify (RFC 9420 §12.4.3.1): the
/// group's state for the new epoch, minus the ratchet tree, which the group layer builds from the
/// GroupInfo's ratchet_tree extension (or elsewhere) and then fills with `pathSecret`.
///
/// Holds key material: redacted when printed.
public struct JoinedEpoch: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The decrypted GroupInfo, signature and confirmation tag verified.
    public let groupInfo: GroupInfo
    /// The decrypted GroupSecrets: joiner_secret, the path secret for the lowest common ancestor of
    /// the joiner and the committer, and the PSKs used.
    public let groupSecrets: GroupSecrets
    /// The reference of our KeyPackage the Welcome was addressed to.
    public let keyPackageRef: KeyPackageRef
    /// The epoch's key schedule output, from joiner_secret, psk_secret and the GroupContext.
    public let epochSecrets: EpochSecrets
    /// Confirmed hash from the GroupContext; interim hash from it and the confirmation tag.
    public let transcriptHashes: TranscriptHashes

    public init(
        groupInfo: GroupInfo, groupSecrets: GroupSecrets, keyPackageRef: KeyPackageRef, epochSecrets: EpochSecrets,
        transcriptHashes: TranscriptHashes
    ) {
        self.groupInfo = groupInfo
        self.groupSecrets = groupSecrets
        self.keyPackageRef = keyPackageRef
        self.epochSecrets = epochSecrets
        self.transcriptHashes = transcriptHashes
    }

    /// The GroupContext of the joined epoch.
    public var groupContext: GroupContext { groupInfo.groupContext }

    /// The path secret to seed the joiner's private keys from the common ancestor upward (§12.4.3.1).
    public var pathSecret: Data? { groupSecrets.pathSecret }

    public var description: String {
        "JoinedEpoch(group \(groupInfo.groupContext.groupID), epoch \(groupInfo.groupContext.epoch), redacted)"
    }
    public var debugDescription: String { description }
}
