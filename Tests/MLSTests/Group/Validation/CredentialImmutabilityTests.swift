import Foundation
import Testing
@testable import MLS

/// A member cannot take another member's identity by replacing its own leaf (MIP-00: credentials
/// are immutable; RFC 9420 §5.3.1 leaves the rule to the application).
struct CredentialImmutabilityTests {
    @Test func updateCannotChangeCredentialIdentity() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol"])
        // Bob claims Alice's identity, then Carol's (the receiver's own).
        for victim in [0, 2] {
            var bob = groups[1]
            let leaf = try HostileMember.updateLeaf(of: bob, claiming: try #require(groups[victim].ownLeafNode).credential)
            let message = try HostileMember.frame(.proposal(.update(Update(leafNode: leaf))), by: &bob)
            for receiver in [0, 2] {
                HostileMember.expectRejected(message, by: &groups[receiver]) {
                    $0 == .invalidLeafNode(.credentialChanged(member: LeafIndex(1)))
                }
                #expect(groups[receiver].proposals.isEmpty)
                #expect(groups[receiver].member(at: LeafIndex(1))?.credential == .basic(identity: Data("bob".utf8)))
            }
        }
        // An Update that keeps the credential (and may carry a new encryption key) is still fine.
        let honest = try groups[1].proposeUpdate()
        guard case .proposal = try groups[0].process(honest) else {
            Issue.record("honest Update not kept")
            return
        }
    }

    @Test func commitPathCannotChangeCredentialIdentity() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol"])
        let aliceCredential = try #require(groups[0].ownLeafNode).credential
        // Bob's client lets itself change identity and rotates its signer into Alice's credential.
        var bob = HostileMember.reconfigured(groups[1]) { $0.credentialsImmutable = false }
        let pending = try bob.selfUpdate(signerRotation: SignerRotation(signer: .generate(), credential: aliceCredential))
        for receiver in [0, 2] {
            let epoch = groups[receiver].epoch
            HostileMember.expectRejected(pending.message, by: &groups[receiver]) {
                $0 == .invalidLeafNode(.credentialChanged(member: LeafIndex(1)))
            }
            #expect(groups[receiver].epoch == epoch)
            #expect(groups[receiver].member(at: LeafIndex(1))?.credential == .basic(identity: Data("bob".utf8)))
        }
        // Rotating only the signature key (MDK's self-update) is accepted.
        try GroupTest.commit(by: 1, in: &groups) { try $0.selfUpdate(signerRotation: SignerRotation(signer: .generate())) }
        GroupTest.expectInSync(groups)
    }

    @Test func credentialsAreImmutableInMarmotAndDefaultConfigurations() {
        #expect(GroupConfiguration.marmot.credentialsImmutable)
        #expect(GroupConfiguration.default.credentialsImmutable)
        #expect(GroupConfiguration.marmot.validation.credentialsImmutable)
        #expect(ValidationConfiguration.marmot.credentialsImmutable)
    }

    @Test func credentialChangeIsAcceptedWhenThePolicyIsOff() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        var bob = groups[1]
        let renamed = Credential.basic(identity: Data("bob, renamed".utf8))
        let leaf = try HostileMember.updateLeaf(of: bob, claiming: renamed)
        let message = try HostileMember.frame(.proposal(.update(Update(leafNode: leaf))), by: &bob)
        var lenient = HostileMember.reconfigured(groups[0]) { $0.credentialsImmutable = false }
        guard case .proposal = try lenient.process(message) else {
            Issue.record("expected the Update to be kept")
            return
        }
    }
}
