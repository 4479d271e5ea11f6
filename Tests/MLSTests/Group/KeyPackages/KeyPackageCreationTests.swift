import Foundation
import Testing
@testable import MLS

struct KeyPackageCreationTests {
    let provider = Fixture.provider

    @Test func createdPackageIsWellFormedAndValidates() throws {
        let (keyPackage, material) = try KeyPackage.create(
            identity: Fixture.identity("alice"), lifetime: .keyPackageDefault(now: Fixture.now),
            keyPackageExtensions: [.lastResort])
        #expect(keyPackage.version == .mls10)
        #expect(keyPackage.cipherSuite == .mls128X25519AES128GCMSHA256Ed25519)
        #expect(keyPackage.initKey != keyPackage.leafNode.encryptionKey)
        #expect(keyPackage.leafNode.credential == .basic(identity: Fixture.identity("alice")))
        #expect(keyPackage.leafNode.source == .keyPackage(lifetime: .keyPackageDefault(now: Fixture.now)))
        #expect(keyPackage.leafNode.extensions.isEmpty)
        #expect(keyPackage.isLastResort)
        #expect(material.matches(keyPackage))
        #expect(provider.verifyKeyPackageSignature(keyPackage))
        #expect(provider.verifyLeafNodeSignature(keyPackage.leafNode, groupID: GroupID(Data()), leafIndex: LeafIndex(0)))
        try Fixture.validator.validate(keyPackage)

        // Bare KeyPackage bytes begin like MDK's: version, suite, 32-byte init key (marmot-wire §2.3).
        let bytes = keyPackage.tlsSerialized
        #expect(Array(bytes.prefix(5)) == [0x00, 0x01, 0x00, 0x01, 0x20])
        #expect(try KeyPackage(tlsSerialized: bytes) == keyPackage)
        #expect(keyPackage.reference() == provider.keyPackageRef(encodedKeyPackage: bytes))
    }

    @Test func keysAreFreshPerPackageAndSignerIsReusedWhenGiven() throws {
        let signer = provider.generateSignatureKey()
        let a = try Fixture.client("a", signer: signer)
        let b = try Fixture.client("b", signer: signer)
        let c = try Fixture.client("c")
        #expect(a.leaf.signatureKey == signer.publicKey && b.leaf.signatureKey == signer.publicKey)
        #expect(c.leaf.signatureKey != signer.publicKey)
        let hpkeKeys = [a, b, c].flatMap { [$0.keyPackage.initKey, $0.leaf.encryptionKey] }
        #expect(Set(hpkeKeys).count == 6)
    }

    @Test func defaultLifetimeMatchesMDK() {
        let lifetime = Lifetime.keyPackageDefault(now: 1_000_000)
        #expect(lifetime.notBefore == 1_000_000 - 3_600)
        #expect(lifetime.notAfter == 1_000_000 + 7_257_600)
        #expect(lifetime.duration == ValidationConfiguration.defaultMaxLifetime)
        #expect(Lifetime.keyPackageDefault(now: 10).notBefore == 0)
        #expect(Lifetime.keyPackageDefault(now: .max).notAfter == .max)
    }

    @Test func greaseValues() {
        #expect(Grease.values.count == 15)
        #expect(Grease.values.first == 0x0A0A && Grease.values.last == 0xEAEA)
        #expect(Grease.values.allSatisfy(Grease.isGrease))
        let notGrease = Set(0...0xFFFF).subtracting(Grease.values.map(Int.init))
        #expect(!notGrease.contains { Grease.isGrease(UInt16($0)) })
    }

    @Test func marmotCapabilitiesMatchMDK() {
        let plain = Capabilities.marmotDefault(grease: false)
        #expect(plain == Capabilities(
            versions: [.mls10], cipherSuites: [CipherSuite(rawValue: 1)],
            extensions: [ExtensionType(rawValue: 0x000a), ExtensionType(rawValue: 0xf2ee)],
            proposals: [ProposalType(rawValue: 0x000a)], credentials: [CredentialType(rawValue: 1)]))

        let greased = Capabilities.marmotDefault()
        #expect(greased.versions == [.mls10])
        #expect(greased.cipherSuites.count == 2 && greased.cipherSuites.filter(\.isGrease).count == 1)
        #expect(greased.extensions.count == 3 && greased.extensions.filter(\.isGrease).count == 1)
        #expect(greased.proposals.count == 2 && greased.proposals.filter(\.isGrease).count == 1)
        #expect(greased.credentials.count == 2 && greased.credentials.filter(\.isGrease).count == 1)
        #expect(greased.cipherSuites.filter { !$0.isGrease } == plain.cipherSuites)
        #expect(greased.extensions.filter { !$0.isGrease } == plain.extensions)
        #expect(greased.proposals.filter { !$0.isGrease } == plain.proposals)
        #expect(greased.credentials.filter { !$0.isGrease } == plain.credentials)
        // Adding GREASE again does not stack a second value.
        #expect(greased.addingGrease() == greased)
    }

    @Test func rejectsInconsistentInputs() {
        let identity = Fixture.identity("x")
        var noBasic = Capabilities.marmotDefault(grease: false)
        noBasic.credentials = [.x509]
        #expect(throws: KeyPackageCreationError.credentialTypeNotInCapabilities(.basic)) {
            try KeyPackage.create(identity: identity, capabilities: noBasic)
        }
        var noSuite = Capabilities.marmotDefault(grease: false)
        noSuite.cipherSuites = [CipherSuite(rawValue: 2)]
        #expect(throws: KeyPackageCreationError.cipherSuiteNotInCapabilities(.mls128X25519AES128GCMSHA256Ed25519)) {
            try KeyPackage.create(identity: identity, capabilities: noSuite)
        }
        var noVersion = Capabilities.marmotDefault(grease: false)
        noVersion.versions = []
        #expect(throws: KeyPackageCreationError.versionNotInCapabilities(.mls10)) {
            try KeyPackage.create(identity: identity, capabilities: noVersion)
        }
        var listsDefault = Capabilities.marmotDefault(grease: false)
        listsDefault.extensions.append(.requiredCapabilities)
        #expect(throws: KeyPackageCreationError.defaultExtensionListed(.requiredCapabilities)) {
            try KeyPackage.create(identity: identity, capabilities: listsDefault)
        }
        var listsDefaultProposal = Capabilities.marmotDefault(grease: false)
        listsDefaultProposal.proposals.append(.add)
        #expect(throws: KeyPackageCreationError.defaultProposalListed(.add)) {
            try KeyPackage.create(identity: identity, capabilities: listsDefaultProposal)
        }
        #expect(throws: KeyPackageCreationError.invalidLifetime(Lifetime(notBefore: 5, notAfter: 4))) {
            try KeyPackage.create(identity: identity, lifetime: Lifetime(notBefore: 5, notAfter: 4))
        }
        let unlisted = Extension(type: ExtensionType(rawValue: 0xF0F0), data: Data())
        #expect(throws: KeyPackageCreationError.extensionNotInCapabilities(unlisted.type)) {
            try KeyPackage.create(identity: identity, keyPackageExtensions: [unlisted])
        }
        #expect(throws: KeyPackageCreationError.extensionNotInCapabilities(unlisted.type)) {
            try KeyPackage.create(identity: identity, leafExtensions: [unlisted])
        }
        #expect(throws: KeyPackageCreationError.duplicateExtension(.lastResort)) {
            try KeyPackage.create(identity: identity, keyPackageExtensions: [.lastResort, .lastResort])
        }
    }

    @Test func greaseAndDefaultExtensionsNeedNoListing() throws {
        let grease = Extension(type: ExtensionType(rawValue: 0x3A3A), data: Data([1, 2, 3]))
        let appID = Extension(type: .applicationID, data: Data("app".utf8))
        let client = try Fixture.client("g", keyPackageExtensions: [.lastResort, grease])
        try Fixture.validator.validate(client.keyPackage)
        let (withAppID, _) = try KeyPackage.create(
            identity: Fixture.identity("h"), lifetime: .keyPackageDefault(now: Fixture.now), leafExtensions: [appID])
        try Fixture.validator.validate(withAppID)
    }
}

struct KeyPackagePrivateMaterialTests {
    @Test func storageRoundTrip() throws {
        let client = try Fixture.client("storage")
        let stored = client.material.serializedForStorage()
        #expect(stored.count == 2 + 2 + 3 * 33)
        #expect(Array(stored.prefix(4)) == [0x00, 0x01, 0x00, 0x01])
        let restored = try KeyPackagePrivateMaterial(storage: stored)
        #expect(restored.matches(client.keyPackage))
        #expect(restored.cipherSuite == client.material.cipherSuite)
        #expect(restored.initPrivateKey.rawBytesForStorage == client.material.initPrivateKey.rawBytesForStorage)
        #expect(restored.encryptionPrivateKey.rawBytesForStorage == client.material.encryptionPrivateKey.rawBytesForStorage)
        #expect(restored.signaturePrivateKey.rawBytesForStorage == client.material.signaturePrivateKey.rawBytesForStorage)
        #expect(restored.serializedForStorage() == stored)
    }

    @Test func storageRejectsBadInput() throws {
        let stored = try Fixture.client("bad storage").material.serializedForStorage()
        var wrongVersion = stored
        wrongVersion[1] = 2
        #expect(throws: KeyPackageStorageError.unsupportedVersion(2)) { try KeyPackagePrivateMaterial(storage: wrongVersion) }
        var wrongSuite = stored
        wrongSuite[3] = 3
        #expect(throws: KeyPackageStorageError.unsupportedCipherSuite(CipherSuite(rawValue: 3))) {
            try KeyPackagePrivateMaterial(storage: wrongSuite)
        }
        #expect(throws: KeyPackageStorageError.malformed) { try KeyPackagePrivateMaterial(storage: stored + [0]) }
        #expect(throws: KeyPackageStorageError.malformed) { try KeyPackagePrivateMaterial(storage: stored.dropLast()) }
        #expect(throws: KeyPackageStorageError.malformed) { try KeyPackagePrivateMaterial(storage: Data()) }
        // A 31-byte signature seed: valid framing, invalid key.
        var shortKey = Data(stored.prefix(4 + 33 + 33))
        shortKey.append(31)
        shortKey.append(Data(repeating: 7, count: 31))
        #expect(throws: KeyPackageStorageError.invalidKey(.invalidLength(what: "Ed25519 seed", expected: 32, actual: 31))) {
            try KeyPackagePrivateMaterial(storage: shortKey)
        }
    }

    @Test func privateMaterialIsRedacted() throws {
        let material = try Fixture.client("redacted").material
        #expect(material.description == "KeyPackagePrivateMaterial(redacted)")
        #expect(String(reflecting: material) == "KeyPackagePrivateMaterial(redacted)")
        #expect("\(material)".contains("redacted"))
        let seedHex = material.signaturePrivateKey.rawBytesForStorage.map { String(format: "%02x", $0) }.joined()
        #expect(!"\(material)".contains(seedHex))
    }

    @Test func mismatchedMaterialIsDetected() throws {
        let a = try Fixture.client("a"), b = try Fixture.client("b")
        #expect(!a.material.matches(b.keyPackage))
    }
}
