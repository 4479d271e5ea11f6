import Foundation
import Testing
@testable import MLS

/// The v2 configuration: handshakes only as PublicMessage (MDK's pure-plaintext wire-format
/// policy), stored with the group; and signer rotation that also replaces the leaf's extensions
/// (v2 binds each leaf signature key with a signed leaf component).
@Suite struct MarmotV2GroupConfigurationTests {
    @Test func marmotV2Settings() {
        let configuration = GroupConfiguration.marmotV2
        #expect(configuration.outgoingHandshake == .publicMessage)
        #expect(configuration.acceptPublicHandshakes)
        #expect(!configuration.acceptPrivateHandshakes)
        #expect(configuration.credentialRule == .marmot)
        #expect(GroupConfiguration.default.acceptPrivateHandshakes)
        #expect(GroupConfiguration.marmot.acceptPrivateHandshakes)
    }

    @Test func privateMessageHandshakesAreRefusedUnderMarmotV2() throws {
        var groups = try AppDataFixture.makeGroup(["alice", "bob"])
        // Alice's client frames its handshakes as PrivateMessage, as a v1 client would.
        var alice = HostileMember.reconfigured(groups[0]) { $0.outgoingHandshake = .privateMessage }
        let proposal = try alice.propose(.appDataUpdate(.update(0x8001, Data([1, 0x41, 0]))))
        guard case .privateMessage = proposal.body else {
            Issue.record("expected a PrivateMessage")
            return
        }
        HostileMember.expectRejected(proposal, by: &groups[1]) { $0 == .wireFormatNotAllowed(.privateMessage) }
        let commit = try alice.commit(proposals: [.appDataUpdate(.update(0x8001, Data([1, 0x42, 0])))], includePendingProposals: false)
        HostileMember.expectRejected(commit.message, by: &groups[1]) { $0 == .wireFormatNotAllowed(.privateMessage) }
        #expect(GroupError.wireFormatNotAllowed(.privateMessage).description.contains("PrivateMessage handshakes"))
        // Application messages stay PrivateMessage and are accepted.
        try GroupTest.send("still readable", from: 0, in: &groups)
        // The same commit framed as PublicMessage goes through.
        try GroupTest.commit(by: 0, in: &groups) {
            try $0.commit(proposals: [.appDataUpdate(.update(0x8001, Data([1, 0x42, 0])))])
        }
        try AppDataFixture.expectInSync(groups)
    }

    @Test func privateMessageHandshakesAreAcceptedByDefault() throws {
        var groups = try AppDataFixture.makeGroup(["alice", "bob"], configuration: .default)
        let proposal = try groups[0].propose(.appDataUpdate(.update(0x8001, Data([1, 0x41, 0]))))
        guard case .privateMessage = proposal.body else {
            Issue.record("expected a PrivateMessage")
            return
        }
        guard case .proposal = try groups[1].process(proposal) else {
            Issue.record("expected a pending proposal")
            return
        }
        let (pending, _) = try GroupTest.commit(by: 0, in: &groups) { try $0.commit() }
        guard case .privateMessage = pending.message.body else {
            Issue.record("expected a PrivateMessage commit")
            return
        }
        try AppDataFixture.expectInSync(groups)
        #expect(try AppDataFixture.dictionary(of: groups[1])[0x8001] == Data([1, 0x41, 0]))
    }

    @Test func configurationIsStoredWithTheGroup() throws {
        let groups = try AppDataFixture.makeGroup(["alice", "bob"])
        let bytes = groups[1].serialized()
        #expect(bytes.first == 3)
        var restored = try MLSGroup(serialized: bytes)
        #expect(restored.configuration == .marmotV2)
        var alice = HostileMember.reconfigured(groups[0]) { $0.outgoingHandshake = .privateMessage }
        let commit = try alice.commit(forceUpdatePath: true)
        HostileMember.expectRejected(commit.message, by: &restored) { $0 == .wireFormatNotAllowed(.privateMessage) }
    }

    @Test func version2StateLoadsWithTheDefault() throws {
        var groups = try AppDataFixture.makeGroup(["alice", "bob"])
        let v2 = try Self.version2Blob(of: groups[1])
        var restored = try MLSGroup(serialized: v2)
        var expected = GroupConfiguration.marmotV2
        expected.acceptPrivateHandshakes = true
        #expect(restored.configuration == expected)
        #expect(restored.epochAuthenticator == groups[1].epochAuthenticator)
        #expect(restored.serialized().first == GroupStateEncoding.version)
        // A state written before the field existed accepts PrivateMessage handshakes, as it did.
        var alice = HostileMember.reconfigured(groups[0]) { $0.outgoingHandshake = .privateMessage }
        let commit = try alice.commit(forceUpdatePath: true)
        guard case .commit = try restored.process(commit.message) else {
            Issue.record("expected a commit")
            return
        }
        groups[0] = commit.newGroup
        groups[1] = restored
        try AppDataFixture.expectInSync(groups)
    }

    @Test func signerRotationReplacesLeafExtensions() throws {
        let oldProof = try AppDataDictionary([ComponentData(componentID: 0x8009, data: Data(repeating: 1, count: 104))])
        var groups = try AppDataFixture.makeGroup(["alice", "bob"], leafExtensions: [Extension(oldProof)])
        let newProof = try AppDataDictionary([ComponentData(componentID: 0x8009, data: Data(repeating: 2, count: 104))])
        let signer = SignaturePrivateKey.generate()
        let rotation = SignerRotation(signer: signer, leafExtensions: [Extension(newProof)])
        let (pending, results) = try GroupTest.commit(by: 0, in: &groups) { try $0.selfUpdate(signerRotation: rotation) }
        try AppDataFixture.expectInSync(groups)
        let seenByBob = try #require(groups[1].member(at: LeafIndex(0)))
        #expect(seenByBob.leafNode.extensions == [Extension(newProof)])
        #expect(seenByBob.signatureKey == signer.publicKey)
        #expect(groups[0].ownLeafNode?.extensions == [Extension(newProof)])
        #expect(pending.summary.updated == [LeafIndex(0)])
        guard case .commit(let summary) = results[0] else {
            Issue.record("expected a commit")
            return
        }
        #expect(summary.hasUpdatePath)

        // Without leafExtensions the rotated leaf keeps its extensions.
        try GroupTest.commit(by: 0, in: &groups) { try $0.selfUpdate(signerRotation: SignerRotation(signer: .generate())) }
        #expect(groups[1].member(at: LeafIndex(0))?.leafNode.extensions == [Extension(newProof)])
        try GroupTest.send("signed with the new key", from: 0, in: &groups)
    }

    /// The layout of state version 2: the current one without `acceptPrivateHandshakes`, the last
    /// configuration field.
    static func version2Blob(of group: MLSGroup) throws -> Data {
        let current = group.serialized()
        var configuration = TLSWriter()
        GroupStateEncoding.write(group.configuration, to: &configuration)
        let length = configuration.bytes.count
        #expect(Data(current.dropFirst().prefix(length)) == configuration.data)
        var blob = Data([2])
        blob.append(contentsOf: configuration.bytes.dropLast())
        blob.append(current.dropFirst(1 + length))
        return blob
    }
}
