import Foundation
import Testing
@testable import MLS

/// Shared inputs for the KeyPackage and validation tests: clients made with `KeyPackage.create`, a
/// small group tree built from them, and re-signing helpers for tampered packages.
enum Fixture {
    static let provider = CipherSuiteProvider.mls128X25519
    /// A fixed "now" so lifetime checks never depend on the wall clock.
    static let now: UInt64 = 1_800_000_000

    /// A 32-byte identity, as Marmot puts a Nostr key in the basic credential.
    static func identity(_ name: String) -> Data { provider.hash(Data(name.utf8)) }

    /// The GroupContext extensions of a Marmot group: NostrGroupData and required_capabilities
    /// (0xf2ee, self_remove) as MDK writes them (marmot-wire §3.1).
    static let marmotExtensions: [Extension] = [
        Extension(type: .marmotGroupData, data: Data([0x00, 0x02])),
        Extension(RequiredCapabilities(extensionTypes: [.marmotGroupData], proposalTypes: [.selfRemove], credentialTypes: [])),
    ]

    /// Capabilities without self_remove, for members that lack it.
    static let noSelfRemove = Capabilities(
        versions: [.mls10], cipherSuites: [.mls128X25519AES128GCMSHA256Ed25519],
        extensions: [.lastResort, .marmotGroupData], proposals: [], credentials: [.basic])

    static let validator = KeyPackageValidator(now: now)

    /// A client's KeyPackage and keys, valid at `now`.
    static func client(
        _ name: String, capabilities: Capabilities = .marmotDefault(), lifetime: Lifetime? = nil,
        keyPackageExtensions: [Extension] = [.lastResort], signer: SignaturePrivateKey? = nil
    ) throws -> Client {
        let (keyPackage, material) = try KeyPackage.create(
            identity: identity(name), capabilities: capabilities, lifetime: lifetime ?? .keyPackageDefault(now: now),
            keyPackageExtensions: keyPackageExtensions, signer: signer)
        return Client(keyPackage: keyPackage, material: material)
    }

    /// Re-signs a KeyPackage's leaf and the package after a test changed them.
    static func resign(_ keyPackage: inout KeyPackage, with signer: SignaturePrivateKey) throws {
        try provider.signLeafNode(&keyPackage.leafNode, with: signer, groupID: GroupID(Data()), leafIndex: LeafIndex(0))
        try provider.signKeyPackage(&keyPackage, with: signer)
    }

    /// A group of `count` members (leaves 0..<count) from created KeyPackages.
    static func group(
        _ count: Int, capabilities: (Int) -> Capabilities = { _ in .marmotDefault() },
        extensions: [Extension] = marmotExtensions
    ) throws -> TestGroup {
        var members: [Client] = []
        for i in 0..<count { members.append(try client("member \(i)", capabilities: capabilities(i))) }
        var tree = RatchetTree(provider: provider, firstLeaf: members[0].leaf)
        for member in members.dropFirst() { try tree.add(member.leaf) }
        let context = GroupContext(
            cipherSuite: .mls128X25519AES128GCMSHA256Ed25519, groupID: GroupID(provider.randomBytes(16)), epoch: 3,
            treeHash: Data(repeating: 1, count: 32), confirmedTranscriptHash: Data(repeating: 2, count: 32),
            extensions: extensions)
        return TestGroup(tree: tree, context: context, members: members)
    }
}

struct Client {
    var keyPackage: KeyPackage
    var material: KeyPackagePrivateMaterial
    var leaf: LeafNode { keyPackage.leafNode }
    var signer: SignaturePrivateKey { material.signaturePrivateKey }
}

struct TestGroup {
    var tree: RatchetTree
    var context: GroupContext
    var members: [Client]

    var validationContext: GroupValidationContext { GroupValidationContext(groupContext: context, tree: tree) }

    /// The member at `index` re-keyed with a new encryption key and the given source, signed for its
    /// position in this group.
    func renewedLeaf(
        _ index: UInt32, source: LeafNodeSource = .update, encryptionKey: HPKEPublicKey? = nil,
        signedAt signingIndex: UInt32? = nil, groupID: GroupID? = nil
    ) throws -> LeafNode {
        let member = members[Int(index)]
        var leaf = member.leaf
        leaf.encryptionKey = encryptionKey ?? Fixture.provider.generateKeyPair().publicKey
        leaf.source = source
        try Fixture.provider.signLeafNode(
            &leaf, with: member.signer, groupID: groupID ?? context.groupID, leafIndex: LeafIndex(signingIndex ?? index))
        return leaf
    }
}

extension Fixture {
    /// Alice adds Bob; besides the genuine Welcome, Alice (hostile) re-makes it with two
    /// ratchet_tree extensions in the GroupInfo, which validation refuses (§12.4.3.1).
    struct DoubledTreeWelcome {
        let genuine: Welcome
        let forged: Welcome
        let bobPackage: KeyPackage
        let bobKeys: KeyPackagePrivateMaterial
        let epoch: UInt64
    }

    static func doubledTreeWelcome() throws -> DoubledTreeWelcome {
        let alice = GroupTestClient("alice"), bob = GroupTestClient("bob")
        var aliceGroup = try alice.createGroup()
        let (bobPackage, bobKeys) = try bob.keyPackage()
        let pending = try aliceGroup.commit(adding: [bobPackage])
        let welcome = try #require(pending.welcome)
        let info = try #require(pending.groupInfo)
        let ref = provider.keyPackageRef(encodedKeyPackage: bobPackage.tlsSerialized)
        let joiner = try welcome.decryptGroupSecrets(ref: ref, initPrivateKey: bobKeys.initPrivateKey, provider: provider)
            .joinerSecret
        let secrets = EpochSecrets(provider: provider, joinerSecret: joiner, pskSecret: nil, groupContext: info.groupContext)
        let treeExtension = Extension(pending.newGroup.tree.ratchetTreeNodes)
        let doubled = try GroupInfo.signed(
            groupContext: info.groupContext, extensions: [treeExtension, treeExtension],
            confirmationTag: info.confirmationTag, signer: LeafIndex(0), signingKey: alice.signer, provider: provider)
        let forged = try Welcome.make(
            groupInfo: doubled, epochSecrets: secrets, psks: [],
            recipients: [WelcomeRecipient(keyPackage: bobPackage, pathSecret: nil, provider: provider)])
        return DoubledTreeWelcome(
            genuine: welcome, forged: forged, bobPackage: bobPackage, bobKeys: bobKeys, epoch: pending.newGroup.epoch)
    }
}
