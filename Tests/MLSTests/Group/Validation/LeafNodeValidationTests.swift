import Foundation
import Testing
@testable import MLS

struct LeafNodeValidationTests {
    let provider = Fixture.provider
    let validator = LeafNodeValidator(now: Fixture.now)

    @Test func updateAndCommitLeavesValidate() throws {
        let group = try Fixture.group(3)
        try validator.validate(try group.renewedLeaf(1), as: .update(LeafIndex(1)), in: group.validationContext)
        let commitLeaf = try group.renewedLeaf(2, source: .commit(parentHash: Data(repeating: 5, count: 32)))
        try validator.validate(commitLeaf, as: .commit(LeafIndex(2)), in: group.validationContext)
    }

    @Test func sourceMustFitTheUsage() throws {
        let group = try Fixture.group(3)
        #expect(throws: LeafNodeValidationError.unexpectedSource(expected: .update, actual: .keyPackage)) {
            try validator.validate(group.members[1].leaf, as: .update(LeafIndex(1)), in: group.validationContext)
        }
        let commitLeaf = try group.renewedLeaf(1, source: .commit(parentHash: Data()))
        #expect(throws: LeafNodeValidationError.unexpectedSource(expected: .update, actual: .commit)) {
            try validator.validate(commitLeaf, as: .update(LeafIndex(1)), in: group.validationContext)
        }
        #expect(throws: LeafNodeValidationError.unexpectedSource(expected: .commit, actual: .update)) {
            try validator.validate(try group.renewedLeaf(1), as: .commit(LeafIndex(1)), in: group.validationContext)
        }
    }

    @Test func signatureBindsGroupAndLeafIndex() throws {
        let group = try Fixture.group(3)
        let otherIndex = try group.renewedLeaf(1, signedAt: 2)
        #expect(throws: LeafNodeValidationError.badSignature) {
            try validator.validate(otherIndex, as: .update(LeafIndex(1)), in: group.validationContext)
        }
        let otherGroup = try group.renewedLeaf(1, groupID: GroupID(Data("elsewhere".utf8)))
        #expect(throws: LeafNodeValidationError.badSignature) {
            try validator.validate(otherGroup, as: .update(LeafIndex(1)), in: group.validationContext)
        }
        var tampered = try group.renewedLeaf(1)
        tampered.capabilities.proposals.append(ProposalType(rawValue: 0x7A7A))
        #expect(throws: LeafNodeValidationError.badSignature) {
            try validator.validate(tampered, as: .update(LeafIndex(1)), in: group.validationContext)
        }
    }

    @Test func encryptionKeyMustChangeAndBeUnique() throws {
        let group = try Fixture.group(3)
        let stale = try group.renewedLeaf(1, encryptionKey: group.members[1].leaf.encryptionKey)
        #expect(throws: LeafNodeValidationError.encryptionKeyNotRefreshed) {
            try validator.validate(stale, as: .update(LeafIndex(1)), in: group.validationContext)
        }
        let clash = try group.renewedLeaf(1, encryptionKey: group.members[2].leaf.encryptionKey)
        #expect(throws: LeafNodeValidationError.duplicateEncryptionKey(LeafIndex(2).nodeIndex)) {
            try validator.validate(clash, as: .update(LeafIndex(1)), in: group.validationContext)
        }
        // A departing member's key does not clash.
        var departing = group.validationContext
        departing.departingLeaves = [LeafIndex(2)]
        try validator.validate(clash, as: .update(LeafIndex(1)), in: departing)
    }

    @Test func signatureKeyMustBeUnique() throws {
        let group = try Fixture.group(3)
        // Member 1 signs a leaf carrying member 2's signature key: the signature fails first, so sign
        // with member 2's key but present it as an Update of leaf 1.
        var leaf = group.members[2].leaf
        leaf.credential = group.members[1].leaf.credential
        leaf.encryptionKey = provider.generateKeyPair().publicKey
        leaf.source = .update
        try provider.signLeafNode(&leaf, with: group.members[2].signer, groupID: group.context.groupID, leafIndex: LeafIndex(1))
        #expect(throws: LeafNodeValidationError.duplicateSignatureKey(LeafIndex(2))) {
            try validator.validate(leaf, as: .update(LeafIndex(1)), in: group.validationContext)
        }
    }

    @Test func credentialTypesMustBeMutuallySupported() throws {
        var withX509 = Capabilities.marmotDefault()
        withX509.credentials.append(.x509)
        let group = try Fixture.group(3, capabilities: { $0 == 2 ? Capabilities.marmotDefault() : withX509 })

        // A leaf with an x509 credential; member 2 does not list x509.
        let signer = provider.generateSignatureKey()
        let (x509Package, _) = try KeyPackage.create(
            credential: .x509(certificates: [Certificate(derBytes: Data([0x30, 0x00]))]), capabilities: withX509,
            lifetime: .keyPackageDefault(now: Fixture.now), signer: signer)
        #expect(throws: LeafNodeValidationError.credentialUnsupportedByMember(.x509, member: LeafIndex(2))) {
            try validator.validate(x509Package.leafNode, as: .keyPackage, in: group.validationContext)
        }
        // Member 2 leaving removes the objection.
        var departing = group.validationContext
        departing.departingLeaves = [LeafIndex(2)]
        try validator.validate(x509Package.leafNode, as: .keyPackage, in: departing)

        // A leaf that does not list basic, which every member uses.
        var x509Only = withX509
        x509Only.credentials = [.x509]
        let (x509OnlyPackage, _) = try KeyPackage.create(
            credential: .x509(certificates: []), capabilities: x509Only, lifetime: .keyPackageDefault(now: Fixture.now))
        #expect(throws: LeafNodeValidationError.memberCredentialUnsupported(.basic, member: LeafIndex(0))) {
            try validator.validate(x509OnlyPackage.leafNode, as: .keyPackage, in: departing)
        }
    }

    @Test func ownCredentialTypeMustBeListed() throws {
        var client = try Fixture.client("own type")
        client.keyPackage.leafNode.capabilities.credentials = [CredentialType(rawValue: 0x1A1A)]
        try Fixture.resign(&client.keyPackage, with: client.signer)
        #expect(throws: LeafNodeValidationError.credentialTypeNotInCapabilities(.basic)) {
            try validator.validateKeyPackageLeaf(client.keyPackage.leafNode)
        }
    }

    @Test func requiredCapabilitiesApplyToUpdates() throws {
        let group = try Fixture.group(2)
        var leaf = try group.renewedLeaf(1)
        leaf.capabilities = Fixture.noSelfRemove
        try provider.signLeafNode(&leaf, with: group.members[1].signer, groupID: group.context.groupID, leafIndex: LeafIndex(1))
        #expect(throws: LeafNodeValidationError.missingRequiredCapability(.proposalType(.selfRemove))) {
            try validator.validate(leaf, as: .update(LeafIndex(1)), in: group.validationContext)
        }
    }

    @Test func leafExtensionsMustBeListed() throws {
        let group = try Fixture.group(2)
        var leaf = try group.renewedLeaf(1)
        leaf.extensions = [Extension(type: ExtensionType(rawValue: 0xF00D), data: Data())]
        try provider.signLeafNode(&leaf, with: group.members[1].signer, groupID: group.context.groupID, leafIndex: LeafIndex(1))
        #expect(throws: LeafNodeValidationError.unsupportedExtension(ExtensionType(rawValue: 0xF00D))) {
            try validator.validate(leaf, as: .update(LeafIndex(1)), in: group.validationContext)
        }
    }

    @Test func credentialPolicyApplies() throws {
        let group = try Fixture.group(2)
        let strict = LeafNodeValidator(
            configuration: ValidationConfiguration(credentialPolicy: { _ in false }), now: Fixture.now)
        #expect(throws: LeafNodeValidationError.credentialRejected(.basic)) {
            try strict.validate(try group.renewedLeaf(1), as: .update(LeafIndex(1)), in: group.validationContext)
        }
    }

    @Test func treeLeavesValidateAndLifetimeIsOptional() throws {
        let group = try Fixture.group(4)
        try validator.validateTreeLeaves(of: group.tree, groupContext: group.context)

        // Long after the KeyPackages expired: fine by default, rejected when asked for.
        let later = Fixture.now + 200 * 86_400
        try LeafNodeValidator(now: later).validateTreeLeaves(of: group.tree, groupContext: group.context)
        let strict = LeafNodeValidator(configuration: ValidationConfiguration(checkLifetimeOfTreeLeaves: true), now: later)
        let notAfter = Lifetime.keyPackageDefault(now: Fixture.now).notAfter
        #expect(throws: TreeLeafValidationError(leaf: LeafIndex(0), reason: .expired(notAfter: notAfter, now: later))) {
            try strict.validateTreeLeaves(of: group.tree, groupContext: group.context)
        }

        // A tampered leaf is reported with its index.
        var tree = group.tree
        var leaf = group.members[3].leaf
        leaf.credential = .basic(identity: Fixture.identity("mallory"))
        try tree.update(leaf, at: LeafIndex(3))
        #expect(throws: TreeLeafValidationError(leaf: LeafIndex(3), reason: .badSignature)) {
            try validator.validateTreeLeaves(of: tree, groupContext: group.context)
        }
    }
}
