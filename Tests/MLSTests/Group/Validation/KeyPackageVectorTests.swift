import Foundation
import Testing
import TestSupport
@testable import MLS

/// Third-party KeyPackages validate: welcome.json's `key_package`, messages.json's suite-1
/// `mls_key_package` entries, and the real MDK 0.8.0 KeyPackage of marmot-wire §12.1 (all read in place).
struct KeyPackageVectorTests {
    struct WelcomeEntry: Decodable { let cipher_suite: UInt16; let key_package: String }
    struct MessagesEntry: Decodable { let mls_key_package: String }

    static func keyPackage(fromMessageHex hex: String) throws -> KeyPackage {
        guard let bytes = Data(testHex: hex), case .keyPackage(let keyPackage) = try MLSMessage(tlsSerialized: bytes).body
        else { throw FixtureError.malformed("key_package is not an MLSMessage KeyPackage") }
        return keyPackage
    }

    /// A time inside the KeyPackage's lifetime.
    static func timeInside(_ keyPackage: KeyPackage) throws -> UInt64 {
        guard case .keyPackage(let lifetime) = keyPackage.leafNode.source else {
            throw FixtureError.malformed("leaf source is not key_package")
        }
        return lifetime.notBefore + 1
    }

    @Test func welcomeVectorKeyPackageValidates() throws {
        guard let entries = try SharedFixtures.loadJSON([WelcomeEntry].self, "mls/welcome.json") else { return }
        let mine = entries.filter { $0.cipher_suite == 1 }
        SharedFixtures.report(
            "mls/welcome.json (KeyPackage validation)", ran: mine.count, skipped: entries.count - mine.count)
        #expect(mine.count == 1)
        for entry in mine {
            let keyPackage = try Self.keyPackage(fromMessageHex: entry.key_package)
            // Its lifetime is 0 ... 2^64-1, so the span limit is lifted for it.
            let validator = KeyPackageValidator(
                configuration: ValidationConfiguration(maxLifetime: nil), now: try Self.timeInside(keyPackage))
            try validator.validate(keyPackage)
            #expect(throws: KeyPackageValidationError.lifetimeTooLong(span: .max, maximum: ValidationConfiguration.defaultMaxLifetime)) {
                try KeyPackageValidator(now: 1_800_000_000).validate(keyPackage)
            }
        }
    }

    @Test func messagesVectorKeyPackagesValidate() throws {
        guard let entries = try SharedFixtures.loadJSON([MessagesEntry].self, "mls/messages.json") else { return }
        var ran = 0
        for entry in entries {
            let keyPackage = try Self.keyPackage(fromMessageHex: entry.mls_key_package)
            guard keyPackage.cipherSuite == .mls128X25519AES128GCMSHA256Ed25519 else { continue }
            try KeyPackageValidator(now: try Self.timeInside(keyPackage)).validate(keyPackage)
            ran += 1
        }
        SharedFixtures.report(
            "mls/messages.json (mls_key_package validation)", ran: ran, skipped: entries.count - ran)
        #expect(ran > 0)
    }

    // MARK: MDK 0.8.0

    /// The KeyPackage event of marmot-wire §12.1: its base64 content and its `i` tag.
    static func mdkKeyPackage() throws -> (bytes: Data, ref: String)? {
        guard SharedFixtures.shouldRun else { return nil }
        let url = SharedFixtures.sharedRoot.appendingPathComponent("reference/marmot-wire.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        guard let section = text.range(of: "### 12.1") else { throw FixtureError.malformed("marmot-wire.md has no §12.1") }
        let rest = text[section.upperBound...]
        guard let fenceOpen = rest.range(of: "```\n"),
              let fenceClose = rest[fenceOpen.upperBound...].range(of: "\n```"),
              let bytes = Data(base64Encoded: String(rest[fenceOpen.upperBound..<fenceClose.lowerBound]))
        else { throw FixtureError.malformed("marmot-wire.md §12.1 content block") }
        guard let tag = rest.range(of: "[\"i\",\"") else { throw FixtureError.malformed("marmot-wire.md §12.1 i tag") }
        let ref = String(rest[tag.upperBound...].prefix(64))
        return (bytes, ref)
    }

    @Test func mdkKeyPackageValidates() throws {
        guard let (bytes, ref) = try Self.mdkKeyPackage() else { return }
        SharedFixtures.report("reference/marmot-wire.md §12.1 (MDK 0.8.0 KeyPackage)", ran: 1, skipped: 0, reason: "none")
        #expect(bytes.count == 317)
        let keyPackage = try KeyPackage(tlsSerialized: bytes)
        #expect(keyPackage.tlsSerialized == bytes)
        #expect(keyPackage.reference().bytes.testHex == ref)
        #expect(keyPackage.isLastResort)
        #expect(keyPackage.leafNode.source == .keyPackage(lifetime: Lifetime(notBefore: 1_795_311_853, notAfter: 1_802_573_053)))

        // GREASE in every list MDK greases, and the rest exactly our Marmot capabilities.
        let capabilities = keyPackage.leafNode.capabilities
        #expect(capabilities.cipherSuites.contains { $0.isGrease })
        #expect(capabilities.extensions.contains { $0.isGrease })
        #expect(capabilities.proposals.contains { $0.isGrease })
        #expect(capabilities.credentials.contains { $0.isGrease })
        let ours = Capabilities.marmotDefault(grease: false)
        #expect(capabilities.versions == ours.versions)
        #expect(capabilities.cipherSuites.filter { !$0.isGrease } == ours.cipherSuites)
        #expect(capabilities.extensions.filter { !$0.isGrease } == ours.extensions)
        #expect(capabilities.proposals.filter { !$0.isGrease } == ours.proposals)
        #expect(capabilities.credentials.filter { !$0.isGrease } == ours.credentials)

        // Valid across its lifetime under the Marmot configuration (84-day + 1 h span limit, 32-byte
        // identity), standalone and as an Add into a Marmot group.
        for now: UInt64 in [1_795_311_853, 1_798_000_000, 1_802_573_053] {
            try KeyPackageValidator(configuration: .marmot, now: now).validate(keyPackage)
        }
        let group = try Fixture.group(2)
        try KeyPackageValidator(configuration: .marmot, now: 1_798_000_000).validate(keyPackage, in: group.validationContext)
        try ProposalListValidator(configuration: .marmot, now: 1_798_000_000).validate(
            [CommittedProposal(proposal: .add(Add(keyPackage: keyPackage)), sender: .member(leafIndex: LeafIndex(0)))],
            committer: .member(leafIndex: LeafIndex(0)), tree: group.tree, groupContext: group.context, hasPath: false)

        #expect(throws: KeyPackageValidationError.expired(notAfter: 1_802_573_053, now: 1_802_573_054)) {
            try KeyPackageValidator(now: 1_802_573_054).validate(keyPackage)
        }
        #expect(throws: KeyPackageValidationError.notYetValid(notBefore: 1_795_311_853, now: 1_795_311_852)) {
            try KeyPackageValidator(now: 1_795_311_852).validate(keyPackage)
        }
        var tampered = bytes
        tampered[tampered.count - 1] ^= 0x01
        #expect(throws: KeyPackageValidationError.badSignature) {
            try KeyPackageValidator(now: 1_798_000_000).validate(try KeyPackage(tlsSerialized: tampered))
        }
    }

    /// Our KeyPackages have the same shape as MDK's, so MDK's §2.5 checks see what they expect.
    @Test func ourKeyPackageHasMDKShape() throws {
        guard let (bytes, _) = try Self.mdkKeyPackage() else { return }
        let mdk = try KeyPackage(tlsSerialized: bytes)
        let ours = try Fixture.client("shape").keyPackage
        #expect(ours.tlsSerialized.count == bytes.count)
        #expect(ours.version == mdk.version && ours.cipherSuite == mdk.cipherSuite)
        #expect(ours.extensions.map(\.type) == mdk.extensions.map(\.type))
        #expect(ours.leafNode.extensions == mdk.leafNode.extensions)
        #expect(ours.leafNode.credential.type == mdk.leafNode.credential.type)
        guard case .keyPackage(let a) = ours.leafNode.source, case .keyPackage(let b) = mdk.leafNode.source else {
            Issue.record("leaf sources are not key_package")
            return
        }
        #expect(a.duration == b.duration)
        #expect(ours.leafNode.capabilities.cipherSuites.count == mdk.leafNode.capabilities.cipherSuites.count)
        #expect(ours.leafNode.capabilities.extensions.count == mdk.leafNode.capabilities.extensions.count)
        #expect(ours.leafNode.capabilities.proposals.count == mdk.leafNode.capabilities.proposals.count)
        #expect(ours.leafNode.capabilities.credentials.count == mdk.leafNode.capabilities.credentials.count)
    }
}
