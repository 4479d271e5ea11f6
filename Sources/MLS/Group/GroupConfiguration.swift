import Foundation

/// Local policy of one member's group state: how it frames what it sends, what it accepts, how many
/// past epochs it keeps for late messages (RFC 9420 §6, §9.2, §14, §15.3).
///
/// The defaults are MDK's group configuration: handshakes and application data always sent as
/// PrivateMessage, handshakes accepted in either wire format (OpenMLS "mixed ciphertext"), an
/// out-of-order window of 100 generations back and 1000 forward, five past epochs kept, and the
/// ratchet tree carried in the GroupInfo of every Welcome. KeyPackage lifetimes are bounded to
/// OpenMLS's 84 days plus one hour; the not_before/not_after window is checked on the Adds this
/// member creates, not on Adds others commit (§7.3 only recommends it, and a late processor would
/// fork). Credentials are immutable, past epochs are kept at most seven days, and
/// new_member_proposal Adds are refused.
public struct GroupConfiguration: Hashable, Sendable {
    /// How this member frames the proposals and commits it sends.
    public enum HandshakeFraming: UInt8, Hashable, Sendable {
        /// PrivateMessage: encrypted under the sender's handshake ratchet (§6.3).
        case privateMessage = 1
        /// PublicMessage with a membership tag (§6.2).
        case publicMessage = 2

        var wireFormat: WireFormat { self == .privateMessage ? .privateMessage : .publicMessage }
    }

    /// How outgoing proposals and commits are framed. SelfRemove is always a PublicMessage.
    public var outgoingHandshake: HandshakeFraming
    /// Whether incoming PublicMessage handshakes are accepted.
    public var acceptPublicHandshakes: Bool
    /// Whether incoming PrivateMessage handshakes (proposals and commits) are accepted. Marmot v2
    /// sends handshakes only as PublicMessage and rejects encrypted ones (MDK's pure-plaintext
    /// wire-format policy); application messages are PrivateMessage regardless.
    public var acceptPrivateHandshakes: Bool
    /// Zero padding added to outgoing PrivateMessage contents (§6.3.1).
    public var padding: PaddingPolicy
    /// Out-of-order bounds of the secret tree's ratchets (§9.2, §15.3).
    public var secretTree: SecretTree.Configuration
    /// How many past epochs keep their secret tree for late application messages (§14).
    public var maxPastEpochs: Int
    /// Whether Welcome GroupInfos carry the ratchet_tree extension (§12.4.3.3).
    public var ratchetTreeInWelcome: Bool
    /// Whether pending proposals block sending application data until committed (§12.4).
    public var commitBeforeApplication: Bool
    /// Which credentials members may present (§5.3.1).
    public var credentialRule: CredentialRule
    /// The longest lifetime span accepted for a KeyPackage leaf (§7.2); nil accepts any.
    public var maxLeafLifetime: UInt64?
    /// Whether key_package leaves already in a joined tree must be within their lifetime (§7.3).
    public var checkLifetimeOfTreeLeaves: Bool
    /// Whether a member's credential must stay the same when its leaf is replaced by an Update or a
    /// commit's UpdatePath (§5.3.1 leaves this to the application; MIP-00: the identity is
    /// immutable). The signature key may still change. On by default.
    public var credentialsImmutable: Bool
    /// How long a past epoch is kept for late application messages, in seconds, on top of the
    /// `maxPastEpochs` count; older ones are dropped when the group next changes or is loaded
    /// (§9.2: keys are deleted as soon as they are no longer needed). nil keeps them by count only.
    public var maxPastEpochAge: UInt64?
    /// Whether Add proposals from new_member_proposal senders (§12.1.8) are accepted and kept as
    /// pending; off by default (Marmot has no external joiners).
    public var acceptNewMemberProposals: Bool

    /// The default `maxPastEpochAge`: seven days, long enough for relays to deliver late messages to a
    /// device that was offline for a week, short enough that old keys do not linger.
    public static let defaultMaxPastEpochAge: UInt64 = 7 * 24 * 60 * 60

    /// The application's credential check (§5.3.1), named so it can be stored with the group.
    public enum CredentialRule: UInt8, Hashable, Sendable {
        /// Any credential whose type the members' capabilities allow.
        case any = 0
        /// MIP-00: a basic credential holding a 32-byte Nostr public key.
        case marmot = 1
    }

    public init(
        outgoingHandshake: HandshakeFraming = .privateMessage, acceptPublicHandshakes: Bool = true,
        acceptPrivateHandshakes: Bool = true, padding: PaddingPolicy = .none, secretTree: SecretTree.Configuration = .default, maxPastEpochs: Int = 5,
        ratchetTreeInWelcome: Bool = true, commitBeforeApplication: Bool = true, credentialRule: CredentialRule = .any,
        maxLeafLifetime: UInt64? = ValidationConfiguration.defaultMaxLifetime, checkLifetimeOfTreeLeaves: Bool = false,
        credentialsImmutable: Bool = true, maxPastEpochAge: UInt64? = GroupConfiguration.defaultMaxPastEpochAge,
        acceptNewMemberProposals: Bool = false
    ) {
        self.outgoingHandshake = outgoingHandshake
        self.acceptPublicHandshakes = acceptPublicHandshakes
        self.acceptPrivateHandshakes = acceptPrivateHandshakes
        self.padding = padding
        self.secretTree = secretTree
        self.maxPastEpochs = max(0, maxPastEpochs)
        self.ratchetTreeInWelcome = ratchetTreeInWelcome
        self.commitBeforeApplication = commitBeforeApplication
        self.credentialRule = credentialRule
        self.maxLeafLifetime = maxLeafLifetime
        self.checkLifetimeOfTreeLeaves = checkLifetimeOfTreeLeaves
        self.credentialsImmutable = credentialsImmutable
        self.maxPastEpochAge = maxPastEpochAge
        self.acceptNewMemberProposals = acceptNewMemberProposals
    }

    /// The settings the validators of §7.3, §10.1 and §12.2 run with.
    public var validation: ValidationConfiguration {
        ValidationConfiguration(
            maxLifetime: maxLeafLifetime, checkLifetimeOfTreeLeaves: checkLifetimeOfTreeLeaves,
            credentialPolicy: credentialRule == .marmot ? ValidationConfiguration.marmotCredentialPolicy : nil,
            credentialsImmutable: credentialsImmutable)
    }

    /// MDK 0.8.0's settings (see the type's description), accepting any credential.
    public static let `default` = GroupConfiguration()

    /// The defaults with Marmot's credential rule (MIP-00).
    public static let marmot = GroupConfiguration(credentialRule: .marmot)

    /// Marmot v2 (MDK 0.9.x "current profile"): handshakes sent and accepted only as PublicMessage
    /// (MDK's pure-plaintext wire-format policy), Marmot's credential rule, the other defaults.
    public static let marmotV2 = GroupConfiguration(
        outgoingHandshake: .publicMessage, acceptPublicHandshakes: true, acceptPrivateHandshakes: false,
        credentialRule: .marmot)
}
