import Foundation

/// Failures of secret-tree key requests (RFC 9420 §9); each leaves the tree unchanged.
public enum SecretTreeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The leaf is not in the tree.
    case leafOutOfRange(LeafIndex)
    /// This generation's key was already handed out and deleted (§9.2): a replay or a duplicate.
    case keyAlreadyUsed(generation: UInt32)
    /// The generation is further behind the ratchet than the out-of-order window keeps keys for.
    case generationTooOld(generation: UInt32, oldestKept: UInt64)
    /// The generation is further ahead than the ratchet is allowed to jump in one step.
    case generationTooFarAhead(generation: UInt32, next: UInt64)
    /// The ratchet passed generation 2^32 - 1; the sender must not send more in this epoch.
    case generationsExhausted

    public var description: String {
        switch self {
        case .leafOutOfRange(let leaf): "\(leaf) is outside the secret tree"
        case .keyAlreadyUsed(let g): "key for generation \(g) was already used"
        case .generationTooOld(let g, let oldest): "generation \(g) is older than the oldest kept (\(oldest))"
        case .generationTooFarAhead(let g, let next): "generation \(g) is too far ahead of \(next)"
        case .generationsExhausted: "ratchet generations exhausted"
        }
    }
}

/// One sender ratchet (RFC 9420 §9.1): the current ratchet secret, its generation, and the keys of
/// skipped generations kept for out-of-order delivery. Each key is handed out once, then deleted.
struct HashRatchet: Sendable {
    /// ratchet_secret_[next]; nil once generation 2^32 - 1 was derived.
    private var secret: Data?
    /// The generation `secret` belongs to.
    private(set) var next: UInt64
    /// Keys of generations below `next` that were skipped and not yet used.
    private(set) var skipped: [UInt32: MessageKey] = [:]

    init(secret: Data) {
        self.secret = secret
        next = 0
    }

    /// The key at `next`, then the ratchet steps: ratchet_secret_[j+1] = DeriveTreeSecret(., "secret", j, Nh).
    private mutating func advance(_ provider: CipherSuiteProvider) throws(SecretTreeError) -> MessageKey {
        guard let current = secret, next <= UInt64(UInt32.max) else { throw .generationsExhausted }
        let generation = UInt32(next)
        let key = MessageKey(
            generation: generation,
            key: provider.deriveTreeSecretUnchecked(
                secret: current, label: "key", generation: generation, length: provider.aeadKeyLength),
            nonce: provider.deriveTreeSecretUnchecked(
                secret: current, label: "nonce", generation: generation, length: provider.aeadNonceLength))
        secret = generation == UInt32.max
            ? nil
            : provider.deriveTreeSecretUnchecked(
                secret: current, label: "secret", generation: generation, length: provider.hashLength)
        next += 1
        return key
    }

    /// The key for sending: the next unused generation.
    mutating func nextKey(_ provider: CipherSuiteProvider) throws(SecretTreeError) -> MessageKey {
        try advance(provider)
    }

    /// The key for a received generation. Ahead of the ratchet, it steps forward (at most
    /// `maxForwardDistance` generations), keeping skipped keys no more than `outOfOrderTolerance`
    /// generations behind the newest; behind it, only a kept skipped key can answer.
    mutating func key(
        for generation: UInt32, _ provider: CipherSuiteProvider, configuration: SecretTree.Configuration
    ) throws(SecretTreeError) -> MessageKey {
        let wanted = UInt64(generation)
        if wanted < next {
            if let key = skipped.removeValue(forKey: generation) { return key }
            let oldestKept = next - 1 - min(next - 1, UInt64(configuration.outOfOrderTolerance))
            if wanted < oldestKept { throw .generationTooOld(generation: generation, oldestKept: oldestKept) }
            throw .keyAlreadyUsed(generation: generation)
        }
        guard wanted - next <= UInt64(configuration.maxForwardDistance) else {
            throw .generationTooFarAhead(generation: generation, next: next)
        }
        let oldestToKeep = wanted - min(wanted, UInt64(configuration.outOfOrderTolerance))
        while next < wanted {
            let key = try advance(provider)
            if UInt64(key.generation) >= oldestToKeep { skipped[key.generation] = key }
        }
        let key = try advance(provider)
        skipped = skipped.filter { UInt64($0.key) >= oldestToKeep }
        return key
    }
}
