import Foundation

/// Local policy of one member's group state: how it frames what it sends, what it accepts, how many
/// past epochs it keeps for late messages (RFC 9420 §6, §9.2, §14, §15.3).
///
/// The defaults are MDK's group configuration: handshakes and application data always sent as
/// PrivateMessage, handshakes accepted in either wire format (OpenMLS "mixed ciphertext"), an
/// out-of-order window of 100 generations back and 1000 forward, five past epochs kept, and the
/// ratchet tree carried in the GroupInfo of every Welcome. KeyPackage lifetimes are bounded to
/// OpenMLS's 84 days plus one hour and checked on every Add, sent or received, as OpenMLS does.
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
    /// Whether incoming PublicMessage handshakes are accepted (PrivateMessage always is).
    public var acceptPublicHandshakes: Bool
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

    /// The application's credential check (§5.3.1), named so it can be stored with the group.
    public enum CredentialRule: UInt8, Hashable, Sendable {
        /// Any credential whose type the members' capabilities allow.
        case any = 0
        /// MIP-00: a basic credential holding a 32-byte Nostr public key.
        case marmot = 1
    }

    public init(
        outgoingHandshake: HandshakeFraming = .privateMessage, acceptPublicHandshakes: Bool = true,
        padding: PaddingPolicy = .none, secretTree: SecretTree.Configuration = .default, maxPastEpochs: Int = 5,
        ratchetTreeInWelcome: Bool = true, commitBeforeApplication: Bool = true, credentialRule: CredentialRule = .any,
        maxLeafLifetime: UInt64? = ValidationConfiguration.defaultMaxLifetime, checkLifetimeOfTreeLeaves: Bool = false
    ) {
        self.outgoingHandshake = outgoingHandshake
        self.acceptPublicHandshakes = acceptPublicHandshakes
        self.padding = padding
        self.secretTree = secretTree
        self.maxPastEpochs = max(0, maxPastEpochs)
        self.ratchetTreeInWelcome = ratchetTreeInWelcome
        self.commitBeforeApplication = commitBeforeApplication
        self.credentialRule = credentialRule
        self.maxLeafLifetime = maxLeafLifetime
        self.checkLifetimeOfTreeLeaves = checkLifetimeOfTreeLeaves
    }

    /// The settings the validators of §7.3, §10.1 and §12.2 run with.
    public var validation: ValidationConfiguration {
        ValidationConfiguration(
            maxLifetime: maxLeafLifetime, checkLifetimeOfTreeLeaves: checkLifetimeOfTreeLeaves,
            credentialPolicy: credentialRule == .marmot ? ValidationConfiguration.marmotCredentialPolicy : nil)
    }

    /// MDK 0.8.0's settings (see the type's description), accepting any credential.
    public static let `default` = GroupConfiguration()

    /// The defaults with Marmot's credential rule (MIP-00).
    public static let marmot = GroupConfiguration(credentialRule: .marmot)
}
