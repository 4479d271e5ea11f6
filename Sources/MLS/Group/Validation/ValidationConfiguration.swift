import Foundation

/// Local policy for the checks of RFC 9420 that leave a choice to the application.
public struct ValidationConfiguration: Sendable {
    /// OpenMLS's default bound on a leaf lifetime's total span: 84 days plus the one-hour backdate,
    /// exactly the span MDK 0.8.0 gives its KeyPackages (marmot-wire §2.6).
    public static let defaultMaxLifetime: UInt64 = Lifetime.keyPackageValidity + Lifetime.keyPackageBackdate

    /// The longest not_before ... not_after span accepted for a key_package leaf; §7.2 requires
    /// applications to set one. nil accepts any span.
    public var maxLifetime: UInt64?
    /// Whether key_package-sourced leaves already in a ratchet tree (joining, §7.3) must be within
    /// their lifetime. §7.3 only recommends it for received leaves, and leaves in a long-lived group
    /// expire legitimately, so the default is off. KeyPackages themselves are always checked.
    public var checkLifetimeOfTreeLeaves: Bool
    /// Application credential check (§5.3.1), e.g. Marmot's 32-byte Nostr key in a basic credential;
    /// nil accepts every credential whose type the capabilities allow.
    public var credentialPolicy: (@Sendable (Credential) -> Bool)?
    /// Whether an Update or UpdatePath leaf must carry the same credential as the leaf it replaces
    /// (§5.3.1 leaves credential changes to the application; MIP-00 makes the identity immutable).
    /// The signature key may change. On by default.
    public var credentialsImmutable: Bool
    /// Whether a KeyPackage's not_before/not_after window is checked against `now`. On for the
    /// KeyPackages this member validates for its own Adds; the group turns it off for Adds other
    /// members sent or committed (§7.3 only recommends the check there, and it would fork late
    /// processors).
    public var checkKeyPackageLifetime: Bool

    public init(
        maxLifetime: UInt64? = ValidationConfiguration.defaultMaxLifetime, checkLifetimeOfTreeLeaves: Bool = false,
        credentialPolicy: (@Sendable (Credential) -> Bool)? = nil, credentialsImmutable: Bool = true,
        checkKeyPackageLifetime: Bool = true
    ) {
        self.maxLifetime = maxLifetime
        self.checkLifetimeOfTreeLeaves = checkLifetimeOfTreeLeaves
        self.credentialPolicy = credentialPolicy
        self.credentialsImmutable = credentialsImmutable
        self.checkKeyPackageLifetime = checkKeyPackageLifetime
    }

    /// MIP-00's credential rule: a basic credential whose identity is a 32-byte x-only Nostr key.
    public static let marmotCredentialPolicy: @Sendable (Credential) -> Bool = { credential in
        if case .basic(let identity) = credential { return identity.count == 32 }
        return false
    }

    /// The configuration for Marmot groups: default lifetime bound and the MIP-00 credential rule.
    public static var marmot: ValidationConfiguration {
        ValidationConfiguration(credentialPolicy: marmotCredentialPolicy)
    }
}

/// The parts of a group's state that a new or changed leaf is checked against (RFC 9420 §7.3, §10.1):
/// the GroupContext (id, version, suite, extensions with required_capabilities) and the ratchet tree
/// (other members' capabilities, credentials and keys).
public struct GroupValidationContext: Sendable {
    public var groupContext: GroupContext
    public var tree: RatchetTree
    /// Leaves removed by the same Commit: they neither constrain credentials nor clash on keys.
    public var departingLeaves: Set<LeafIndex>

    public init(groupContext: GroupContext, tree: RatchetTree, departingLeaves: Set<LeafIndex> = []) {
        self.groupContext = groupContext
        self.tree = tree
        self.departingLeaves = departingLeaves
    }
}
