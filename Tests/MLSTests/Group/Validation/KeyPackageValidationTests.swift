import Foundation
import Testing
@testable import MLS

struct KeyPackageValidationTests {
    let provider = Fixture.provider
    let validator = Fixture.validator

    @Test func validPackagePassesAloneAndInGroup() throws {
        let client = try Fixture.client("joiner")
        try validator.validate(client.keyPackage)
        try validator.validate(client.keyPackage, in: try Fixture.group(3).validationContext)
    }

    @Test func tamperedSignatureFails() throws {
        var keyPackage = try Fixture.client("t").keyPackage
        keyPackage.signature[keyPackage.signature.startIndex] ^= 1
        #expect(throws: KeyPackageValidationError.badSignature) { try validator.validate(keyPackage) }

        // A changed signed field (here the init key) breaks the package signature.
        var swappedInit = try Fixture.client("t2").keyPackage
        swappedInit.initKey = provider.generateKeyPair().publicKey
        #expect(throws: KeyPackageValidationError.badSignature) { try validator.validate(swappedInit) }

        // A changed leaf field breaks the leaf signature first.
        var changedLeaf = try Fixture.client("t3").keyPackage
        changedLeaf.leafNode.capabilities.proposals = []
        #expect(throws: KeyPackageValidationError.invalidLeafNode(.badSignature)) { try validator.validate(changedLeaf) }
    }

    @Test func lifetimeIsChecked() throws {
        let lifetime = Lifetime(notBefore: Fixture.now - 100, notAfter: Fixture.now + 100)
        let keyPackage = try Fixture.client("life", lifetime: lifetime).keyPackage
        try KeyPackageValidator(now: Fixture.now - 100).validate(keyPackage)
        try KeyPackageValidator(now: Fixture.now + 100).validate(keyPackage)
        #expect(throws: KeyPackageValidationError.notYetValid(notBefore: Fixture.now - 100, now: Fixture.now - 101)) {
            try KeyPackageValidator(now: Fixture.now - 101).validate(keyPackage)
        }
        #expect(throws: KeyPackageValidationError.expired(notAfter: Fixture.now + 100, now: Fixture.now + 101)) {
            try KeyPackageValidator(now: Fixture.now + 101).validate(keyPackage)
        }
    }

    @Test func overlongLifetimeIsRejectedUnlessAllowed() throws {
        let max = ValidationConfiguration.defaultMaxLifetime
        let exact = try Fixture.client("exact", lifetime: Lifetime(notBefore: Fixture.now - 10, notAfter: Fixture.now - 10 + max))
        try validator.validate(exact.keyPackage)
        let long = try Fixture.client("long", lifetime: Lifetime(notBefore: Fixture.now - 10, notAfter: Fixture.now - 9 + max))
        #expect(throws: KeyPackageValidationError.lifetimeTooLong(span: max + 1, maximum: max)) {
            try validator.validate(long.keyPackage)
        }
        try KeyPackageValidator(configuration: ValidationConfiguration(maxLifetime: nil), now: Fixture.now)
            .validate(long.keyPackage)
    }

    @Test func initKeyEqualToEncryptionKeyIsRejected() throws {
        var client = try Fixture.client("same keys")
        client.keyPackage.initKey = client.leaf.encryptionKey
        try Fixture.resign(&client.keyPackage, with: client.signer)
        #expect(throws: KeyPackageValidationError.initKeyEqualsEncryptionKey) { try validator.validate(client.keyPackage) }
    }

    @Test func unlistedExtensionsAreRejected() throws {
        let unlisted = Extension(type: ExtensionType(rawValue: 0xF0F0), data: Data([9]))
        var inPackage = try Fixture.client("ext")
        inPackage.keyPackage.extensions.append(unlisted)
        try Fixture.resign(&inPackage.keyPackage, with: inPackage.signer)
        #expect(throws: KeyPackageValidationError.unsupportedExtension(unlisted.type)) {
            try validator.validate(inPackage.keyPackage)
        }

        var inLeaf = try Fixture.client("leaf ext")
        inLeaf.keyPackage.leafNode.extensions = [unlisted]
        try Fixture.resign(&inLeaf.keyPackage, with: inLeaf.signer)
        #expect(throws: KeyPackageValidationError.unsupportedExtension(unlisted.type)) {
            try validator.validate(inLeaf.keyPackage)
        }

        var duplicated = try Fixture.client("dup")
        duplicated.keyPackage.extensions.append(.lastResort)
        try Fixture.resign(&duplicated.keyPackage, with: duplicated.signer)
        #expect(throws: KeyPackageValidationError.duplicateExtension(.lastResort)) {
            try validator.validate(duplicated.keyPackage)
        }
    }

    @Test func versionAndSuiteMustMatch() throws {
        var version = try Fixture.client("v")
        version.keyPackage.version = ProtocolVersion(rawValue: 2)
        try Fixture.resign(&version.keyPackage, with: version.signer)
        #expect(throws: KeyPackageValidationError.unsupportedVersion(ProtocolVersion(rawValue: 2))) {
            try validator.validate(version.keyPackage)
        }

        var suite = try Fixture.client("s")
        suite.keyPackage.cipherSuite = CipherSuite(rawValue: 3)
        try Fixture.resign(&suite.keyPackage, with: suite.signer)
        #expect(throws: KeyPackageValidationError.cipherSuiteMismatch(
            expected: .mls128X25519AES128GCMSHA256Ed25519, actual: CipherSuite(rawValue: 3))) {
            try validator.validate(suite.keyPackage)
        }

        var group = try Fixture.group(2)
        group.context.cipherSuite = CipherSuite(rawValue: 3)
        #expect(throws: KeyPackageValidationError.cipherSuiteMismatch(
            expected: CipherSuite(rawValue: 3), actual: .mls128X25519AES128GCMSHA256Ed25519)) {
            try validator.validate(try Fixture.client("x").keyPackage, in: group.validationContext)
        }
    }

    @Test func requiredCapabilitiesMustBeCovered() throws {
        let group = try Fixture.group(2)
        let lacking = try Fixture.client("no self-remove", capabilities: Fixture.noSelfRemove)
        try validator.validate(lacking.keyPackage)
        #expect(throws: KeyPackageValidationError.missingRequiredCapability(.proposalType(.selfRemove))) {
            try validator.validate(lacking.keyPackage, in: group.validationContext)
        }

        // Every GroupContext extension must be listed too (§13.4), required or not.
        var noGroupData = Capabilities.marmotDefault()
        noGroupData.extensions.removeAll { $0 == .marmotGroupData }
        let plainGroup = try Fixture.group(2, extensions: [Extension(type: .marmotGroupData, data: Data([0, 2]))])
        let client = try Fixture.client("no group data", capabilities: noGroupData)
        #expect(throws: KeyPackageValidationError.missingRequiredCapability(.extensionType(.marmotGroupData))) {
            try validator.validate(client.keyPackage, in: plainGroup.validationContext)
        }

        let credentials = try Fixture.group(2, extensions: [
            Extension(RequiredCapabilities(extensionTypes: [], proposalTypes: [], credentialTypes: [.x509])),
        ])
        #expect(throws: KeyPackageValidationError.missingRequiredCapability(.credentialType(.x509))) {
            try validator.validate(try Fixture.client("basic only").keyPackage, in: credentials.validationContext)
        }
    }

    @Test func greaseValuesAreIgnored() throws {
        // Random GREASE picks, many times over.
        for i in 0..<20 { try validator.validate(try Fixture.client("grease \(i)").keyPackage) }
        // Every GREASE value in every list, and a GREASE KeyPackage extension that is not listed.
        let all = Capabilities(
            versions: [.mls10],
            cipherSuites: [.mls128X25519AES128GCMSHA256Ed25519] + Grease.values.map { CipherSuite(rawValue: $0) },
            extensions: [.lastResort, .marmotGroupData] + Grease.values.map { ExtensionType(rawValue: $0) },
            proposals: [.selfRemove] + Grease.values.map { ProposalType(rawValue: $0) },
            credentials: [.basic] + Grease.values.map { CredentialType(rawValue: $0) })
        try validator.validate(
            try Fixture.client("all grease", capabilities: all).keyPackage, in: try Fixture.group(2).validationContext)
        // A GREASE KeyPackage extension with arbitrary data that the capabilities do not list.
        var client = try Fixture.client("grease extension", capabilities: .marmotDefault(grease: false))
        client.keyPackage.extensions.append(Extension(type: ExtensionType(rawValue: 0x5A5A), data: Data(count: 17)))
        try Fixture.resign(&client.keyPackage, with: client.signer)
        try validator.validate(client.keyPackage)
    }

    @Test func credentialPolicyApplies() throws {
        let marmot = KeyPackageValidator(configuration: .marmot, now: Fixture.now)
        try marmot.validate(try Fixture.client("32-byte identity").keyPackage)
        let (short, _) = try KeyPackage.create(identity: Data("alice".utf8), lifetime: .keyPackageDefault(now: Fixture.now))
        try validator.validate(short)
        #expect(throws: KeyPackageValidationError.invalidLeafNode(.credentialRejected(.basic))) {
            try marmot.validate(short)
        }
    }

    @Test func keysMustBeNewToTheGroup() throws {
        let group = try Fixture.group(3)
        let reusedSigner = try Fixture.client("again", signer: group.members[1].signer)
        try validator.validate(reusedSigner.keyPackage)
        #expect(throws: KeyPackageValidationError.invalidLeafNode(.duplicateSignatureKey(LeafIndex(1)))) {
            try validator.validate(reusedSigner.keyPackage, in: group.validationContext)
        }
        // A departing member's keys do not clash.
        var departing = group.validationContext
        departing.departingLeaves = [LeafIndex(1)]
        try validator.validate(reusedSigner.keyPackage, in: departing)

        var reusedEncryption = try Fixture.client("enc")
        reusedEncryption.keyPackage.leafNode.encryptionKey = group.members[2].leaf.encryptionKey
        try Fixture.resign(&reusedEncryption.keyPackage, with: reusedEncryption.signer)
        #expect(throws: KeyPackageValidationError.invalidLeafNode(.duplicateEncryptionKey(LeafIndex(2).nodeIndex))) {
            try validator.validate(reusedEncryption.keyPackage, in: group.validationContext)
        }
    }

    @Test func nonKeyPackageLeafSourceIsRejected() throws {
        var client = try Fixture.client("src")
        client.keyPackage.leafNode.source = .update
        try client.keyPackage.signature = provider.signWithLabel(client.signer, label: "KeyPackageTBS", content: client.keyPackage.tbs.tlsSerialized)
        #expect(throws: KeyPackageValidationError.invalidLeafNode(.unexpectedSource(expected: .keyPackage, actual: .update))) {
            try validator.validate(client.keyPackage)
        }
    }
}
