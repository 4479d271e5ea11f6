import Foundation

/// One member's state of an MLS group for the current epoch (RFC 9420 §8, §11, §12, §14).
///
/// A value type: every transition (commit, proposal, message) is computed on a copy and adopted
/// only when all its checks pass, so a rejected input never changes the state. Creating a commit
/// returns the next epoch's state inside a `PendingCommit` without adopting it; the caller publishes
/// the commit and then merges or discards that state. Holds secrets: not `Codable`, redacted when
/// printed; `serialized()` is the one way out, for storage encrypted at rest.
public struct MLSGroup: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The suite's primitives.
    public let provider: CipherSuiteProvider
    /// Local policy.
    public let configuration: GroupConfiguration
    /// The GroupContext of the current epoch (§8.1).
    public internal(set) var groupContext: GroupContext
    /// The public ratchet tree of the current epoch (§7).
    public internal(set) var tree: RatchetTree
    /// This member's leaf.
    public let ownLeafIndex: LeafIndex
    /// False once a commit removed this member: nothing can be sent, only late messages read.
    public internal(set) var isActive: Bool

    /// HPKE private keys of this member's leaf and direct path; nil once this member was removed
    /// (deleted then, §9.2).
    var privateKeys: TreePrivateKeys?
    /// The signature key of this member's current leaf.
    var signer: SignaturePrivateKey
    /// The key schedule output of the current epoch, without joiner_secret, welcome_secret and
    /// encryption_secret, which are deleted once the secret tree exists (§9.2).
    var epochSecrets: EpochSecrets
    /// The current epoch's secret tree, with consumed keys deleted (§9.2).
    var secretTree: SecretTree
    /// Confirmed and interim transcript hashes (§8.2).
    var transcriptHashes: TranscriptHashes
    /// Proposals received (or sent) in this epoch, in arrival order, for commits by reference.
    var pendingProposals: [PendingProposal]
    /// Leaf private keys of this member's own pending Update proposals, by proposal reference.
    var pendingUpdateKeys: [ProposalRef: HPKEPrivateKey]
    /// Recent epochs kept to decrypt late application messages, oldest first.
    var pastEpochs: [PastEpoch]
    /// Digests of handshake messages this member sent, to recognise them when they come back.
    var sentHandshakes: [SentHandshake]
    /// The clock for lifetime checks and retained-epoch ages, in Unix seconds; injectable for tests.
    var clock: @Sendable () -> UInt64 = { UnixTime.now }
    /// The clock's current time.
    var now: UInt64 { clock() }

    init(
        provider: CipherSuiteProvider, configuration: GroupConfiguration, groupContext: GroupContext, tree: RatchetTree,
        ownLeafIndex: LeafIndex, isActive: Bool, privateKeys: TreePrivateKeys?, signer: SignaturePrivateKey,
        epochSecrets: EpochSecrets, secretTree: SecretTree, transcriptHashes: TranscriptHashes,
        pendingProposals: [PendingProposal] = [], pendingUpdateKeys: [ProposalRef: HPKEPrivateKey] = [:],
        pastEpochs: [PastEpoch] = [], sentHandshakes: [SentHandshake] = []
    ) {
        self.provider = provider
        self.configuration = configuration
        self.groupContext = groupContext
        self.tree = tree
        self.ownLeafIndex = ownLeafIndex
        self.isActive = isActive
        self.privateKeys = privateKeys
        self.signer = signer
        self.epochSecrets = epochSecrets.forgettingTransientSecrets()
        self.secretTree = secretTree
        self.secretTree.consumeRoot()
        self.transcriptHashes = transcriptHashes
        self.pendingProposals = pendingProposals
        self.pendingUpdateKeys = pendingUpdateKeys
        self.pastEpochs = pastEpochs
        self.sentHandshakes = sentHandshakes
    }

    // MARK: Public view

    /// The group's identifier.
    public var groupID: GroupID { groupContext.groupID }
    /// The current epoch number.
    public var epoch: UInt64 { groupContext.epoch }
    /// The GroupContext extensions in force (§12.1.7).
    public var extensions: [Extension] { groupContext.extensions }
    /// The current members, by leaf index.
    public var members: [GroupMember] { tree.leaves.map { GroupMember(leafIndex: $0.index, leafNode: $0.leaf) } }
    /// The member at `leaf`, if that leaf is occupied.
    public func member(at leaf: LeafIndex) -> GroupMember? {
        tree.leafNode(at: leaf).map { GroupMember(leafIndex: leaf, leafNode: $0) }
    }
    /// This member's current LeafNode.
    public var ownLeafNode: LeafNode? { tree.leafNode(at: ownLeafIndex) }
    /// The public half of this member's current signature key.
    public var signaturePublicKey: SignaturePublicKey { signer.publicKey }
    /// Proposals received or sent in this epoch and not yet committed.
    public var proposals: [PendingProposal] { pendingProposals }
    /// The epochs whose late application messages can still be decrypted, oldest first.
    public var retainedEpochs: [UInt64] { pastEpochs.map(\.groupContext.epoch) }

    /// epoch_authenticator of the current epoch (§8.7).
    public var epochAuthenticator: Data { epochSecrets.epochAuthenticator }

    /// MLS-Exporter(label, context, length) for the current epoch (§8.5).
    public func exporter(label: String, context: Data, length: Int) throws(GroupError) -> Data {
        do {
            return try epochSecrets.exporter(label: label, context: context, length: length)
        } catch {
            throw .crypto(error)
        }
    }

    public var description: String {
        "MLSGroup(\(groupID), epoch \(epoch), \(ownLeafIndex) of \(tree.memberCount), redacted)"
    }
    public var debugDescription: String { description }
}

/// A member as the ratchet tree lists it.
public struct GroupMember: Hashable, Sendable {
    public let leafIndex: LeafIndex
    public let leafNode: LeafNode

    public init(leafIndex: LeafIndex, leafNode: LeafNode) {
        self.leafIndex = leafIndex
        self.leafNode = leafNode
    }

    public var credential: Credential { leafNode.credential }
    public var signatureKey: SignaturePublicKey { leafNode.signatureKey }
}

/// A proposal waiting for a commit, with the reference a commit uses for it (RFC 9420 §5.2, §12.1).
public struct PendingProposal: Hashable, Sendable {
    /// RefHash over the AuthenticatedContent that carried the proposal.
    public let ref: ProposalRef
    public let proposal: Proposal
    public let sender: Sender

    public init(ref: ProposalRef, proposal: Proposal, sender: Sender) {
        self.ref = ref
        self.proposal = proposal
        self.sender = sender
    }
}

/// What a retained past epoch keeps to open late application messages (RFC 9420 §14): its context,
/// sender-data secret, secret tree (consumed keys deleted) and the members' signature keys and
/// credentials, plus its resumption PSK for resumption PSK proposals naming it (§8.6), and when it
/// was retained, so that it can be dropped after `GroupConfiguration.maxPastEpochAge` (§9.2).
struct PastEpoch: Sendable {
    var groupContext: GroupContext
    var senderDataSecret: Data
    var resumptionPSK: Data
    var secretTree: SecretTree
    var members: [LeafIndex: PastMember]
    /// Unix seconds when the epoch ended and was retained.
    var retainedAt: UInt64
}

/// A member of a past epoch: enough to verify and attribute its messages.
struct PastMember: Hashable, Sendable {
    var signatureKey: SignaturePublicKey
    var credential: Credential
}

/// A handshake message this member sent: a commit (no ref) or a proposal.
struct SentHandshake: Hashable, Sendable {
    var epoch: UInt64
    var digest: Data
    var proposalRef: ProposalRef?
}
