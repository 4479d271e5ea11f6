import Foundation

/// The per-epoch tree of encryption secrets and the sender ratchets at its leaves (RFC 9420 §9).
///
/// Node secrets are derived lazily from encryption_secret down to the leaf asked for; every secret
/// is deleted once its children or ratchets are derived, and every key once handed out (§9.2).
/// Redacted when printed; not `Codable`.
public struct SecretTree: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Bounds on how far out of order a receiver accepts generations (RFC 9420 §15.3).
    public struct Configuration: Hashable, Sendable {
        /// How many generations behind the newest one a skipped key is kept.
        public var outOfOrderTolerance: UInt32
        /// How many generations a ratchet may jump forward for one message.
        public var maxForwardDistance: UInt32

        public init(outOfOrderTolerance: UInt32 = 100, maxForwardDistance: UInt32 = 1000) {
            self.outOfOrderTolerance = outOfOrderTolerance
            self.maxForwardDistance = maxForwardDistance
        }

        public static let `default` = Configuration()
    }

    struct LeafRatchets: Sendable {
        var handshake: HashRatchet
        var application: HashRatchet

        subscript(type: RatchetType) -> HashRatchet {
            get { type == .handshake ? handshake : application }
            set {
                switch type {
                case .handshake: handshake = newValue
                case .application: application = newValue
                }
            }
        }
    }

    public let provider: CipherSuiteProvider
    public let size: TreeSize
    public let configuration: Configuration
    /// Secrets not yet consumed: the root at first, then the off-path children of derived nodes.
    var nodeSecrets: [NodeIndex: Data]
    var ratchets: [LeafIndex: LeafRatchets] = [:]

    public init(
        provider: CipherSuiteProvider, encryptionSecret: Data, size: TreeSize, configuration: Configuration = .default
    ) {
        self.provider = provider
        self.size = size
        self.configuration = configuration
        nodeSecrets = [size.root: encryptionSecret]
    }

    /// The key of a received message: `generation` of the sender's ratchet. Each generation is
    /// answered once; asking again throws `.keyAlreadyUsed`.
    public mutating func key(
        for leaf: LeafIndex, type: RatchetType, generation: UInt32
    ) throws(SecretTreeError) -> MessageKey {
        var leafRatchets = try ratchets(for: leaf)
        defer { ratchets[leaf] = leafRatchets }
        return try leafRatchets[type].key(for: generation, provider, configuration: configuration)
    }

    /// The key for this member's next message on `leaf`'s ratchet.
    public mutating func nextKey(for leaf: LeafIndex, type: RatchetType) throws(SecretTreeError) -> MessageKey {
        var leafRatchets = try ratchets(for: leaf)
        defer { ratchets[leaf] = leafRatchets }
        return try leafRatchets[type].nextKey(provider)
    }

    /// The generation the leaf's ratchet hands out next (0 before first use).
    public func nextGeneration(for leaf: LeafIndex, type: RatchetType) -> UInt64 {
        ratchets[leaf]?[type].next ?? 0
    }

    /// A leaf's ratchets, derived on first use: the tree secrets from the nearest stored ancestor down
    /// ("tree"/"left"/"right"), then ExpandWithLabel(leaf secret, "handshake"/"application", "", Nh).
    private mutating func ratchets(for leaf: LeafIndex) throws(SecretTreeError) -> LeafRatchets {
        guard size.contains(leaf) else { throw .leafOutOfRange(leaf) }
        if let existing = ratchets[leaf] { return existing }
        let target = leaf.nodeIndex
        let path = ([target] + size.directPath(of: target)).reversed()
        // Some node on the root-to-leaf path still holds a secret: only this function consumes them,
        // and it always stores both children of what it consumes.
        guard let start = path.firstIndex(where: { nodeSecrets[$0] != nil }) else { throw .leafOutOfRange(leaf) }
        var node = path[start]
        while node != target, let secret = nodeSecrets.removeValue(forKey: node),
              let left = node.left, let right = node.right {
            nodeSecrets[left] = deriveChild(secret, "left")
            nodeSecrets[right] = deriveChild(secret, "right")
            node = target < node ? left : right
        }
        guard let leafSecret = nodeSecrets.removeValue(forKey: target) else { throw .leafOutOfRange(leaf) }
        let created = LeafRatchets(
            handshake: HashRatchet(secret: deriveRatchetRoot(leafSecret, .handshake)),
            application: HashRatchet(secret: deriveRatchetRoot(leafSecret, .application)))
        ratchets[leaf] = created
        return created
    }

    private func deriveChild(_ secret: Data, _ side: String) -> Data {
        provider.expandWithLabelUnchecked(secret: secret, label: "tree", context: Data(side.utf8), length: provider.hashLength)
    }

    private func deriveRatchetRoot(_ leafSecret: Data, _ type: RatchetType) -> Data {
        provider.expandWithLabelUnchecked(secret: leafSecret, label: type.label, context: Data(), length: provider.hashLength)
    }

    /// Replaces the root secret (encryption_secret itself) by its children, or by the ratchets of the
    /// only leaf, so that encryption_secret is gone once the tree exists (§9.2) and never stored.
    mutating func consumeRoot() {
        let root = size.root
        guard let secret = nodeSecrets.removeValue(forKey: root) else { return }
        if let left = root.left, let right = root.right {
            nodeSecrets[left] = deriveChild(secret, "left")
            nodeSecrets[right] = deriveChild(secret, "right")
        } else if let leaf = root.leafIndex {
            ratchets[leaf] = LeafRatchets(
                handshake: HashRatchet(secret: deriveRatchetRoot(secret, .handshake)),
                application: HashRatchet(secret: deriveRatchetRoot(secret, .application)))
        }
    }

    /// A tree of `size` leaves holding no secret (a placeholder until the stored one is read).
    static func erased(provider: CipherSuiteProvider, size: TreeSize) -> SecretTree {
        var tree = SecretTree(provider: provider, encryptionSecret: Data(), size: size)
        tree.erase()
        return tree
    }

    /// Deletes every secret and ratchet: the tree then answers no key request (§9.2).
    mutating func erase() {
        nodeSecrets = [:]
        ratchets = [:]
    }

    /// Nodes still holding an unconsumed tree secret (for deletion-schedule tests).
    var storedNodes: Set<NodeIndex> { Set(nodeSecrets.keys) }

    /// Skipped keys currently kept for a leaf's ratchet (for window tests).
    func keptGenerations(for leaf: LeafIndex, type: RatchetType) -> Set<UInt32> {
        ratchets[leaf].map { Set($0[type].skipped.keys) } ?? []
    }

    public var description: String { "SecretTree(\(size.leafCount) leaves, redacted)" }
    public var debugDescription: String { description }
}
