import Foundation
import Testing
@testable import MLS

/// Secrets are deleted as soon as they are no longer needed (RFC 9420 §9.2): the stored state never
/// holds joiner_secret, welcome_secret or encryption_secret; retained epochs expire by age; a removed
/// member keeps no private keys.
struct ForwardSecrecyTests {
    /// True when `needle` appears anywhere in `haystack`.
    func contains(_ haystack: Data, _ needle: Data) -> Bool {
        guard !needle.isEmpty else { return false }
        return haystack.range(of: needle) != nil
    }

    @Test func serializedStateHoldsNoJoinerWelcomeOrEncryptionSecret() throws {
        let alice = GroupTestClient("alice"), bob = GroupTestClient("bob")
        var aliceGroup = try alice.createGroup()
        let (bobPackage, bobKeys) = try bob.keyPackage()
        let pending = try aliceGroup.commit(adding: [bobPackage])
        let welcome = try #require(pending.welcome)
        // What someone who stole the stored state would be after: this epoch's joiner secret (opens
        // the Welcome), welcome secret and encryption secret (derives every message key).
        let provider = GroupTestClient.provider
        let ref = provider.keyPackageRef(encodedKeyPackage: bobPackage.tlsSerialized)
        let joiner = try welcome.decryptGroupSecrets(ref: ref, initPrivateKey: bobKeys.initPrivateKey, provider: provider)
            .joinerSecret
        let bobGroup = try MLSGroup.join(welcome: welcome, keyPackage: bobPackage, privateMaterial: bobKeys)
        let full = EpochSecrets(provider: provider, joinerSecret: joiner, pskSecret: nil, groupContext: bobGroup.groupContext)
        #expect(full.exporterSecret == bobGroup.epochSecrets.exporterSecret, "recomputed the right epoch")

        for state in [pending.newGroup, bobGroup] {
            let bytes = state.serialized()
            for (name, secret) in [
                ("joiner_secret", full.joinerSecret), ("welcome_secret", full.welcomeSecret),
                ("encryption_secret", full.encryptionSecret),
            ] {
                #expect(!contains(bytes, secret), "\(name) is stored")
            }
            #expect(state.epochSecrets.joinerSecret.isEmpty)
            #expect(state.epochSecrets.welcomeSecret.isEmpty)
            #expect(state.epochSecrets.encryptionSecret.isEmpty)
            // Still a working state after a round trip.
            var restored = try MLSGroup(serialized: bytes)
            _ = try restored.encrypt(Data("still works".utf8))
        }
    }

    @Test func version1StateLoadsWithoutTheDeletedSecrets() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let late = try groups[0].encrypt(Data("after upgrade".utf8))
        let v1 = try Self.version1Blob(of: groups[1], secrets: Data(repeating: 0x5a, count: 32))
        var restored = try MLSGroup(serialized: v1)
        #expect(!contains(restored.serialized(), Data(repeating: 0x5a, count: 32)))
        #expect(restored.serialized().first == GroupStateEncoding.version)
        guard case .application(let app) = try restored.process(late) else {
            Issue.record("expected application data")
            return
        }
        #expect(app.data == Data("after upgrade".utf8))
    }

    @Test func retainedEpochIsDroppedAfterMaxAge() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let late = try groups[0].encrypt(Data("late".utf8))
        try GroupTest.commit(by: 0, in: &groups) { try $0.selfUpdate() }
        #expect(groups[1].retainedEpochs == [1])
        let maxAge = try #require(groups[1].configuration.maxPastEpochAge)
        let expired = UnixTime.now + maxAge + 60

        // Loading the state after the age limit drops the epoch and its keys.
        var loaded = try MLSGroup(serialized: groups[1].serialized(), now: expired)
        #expect(loaded.retainedEpochs.isEmpty)
        #expect(throws: GroupError.wrongEpoch(expected: 2, got: 1)) { try loaded.process(late) }

        // So does the next epoch change, with the clock moved forward.
        var bob = groups[1]
        bob.clock = { expired }
        groups[0].clock = { expired }
        var pair = [groups[0], bob]
        try GroupTest.commit(by: 0, in: &pair) { try $0.selfUpdate() }
        #expect(pair[1].retainedEpochs == [2])
        #expect(throws: GroupError.wrongEpoch(expected: 3, got: 1)) { try pair[1].process(late) }

        // Within the limit the late message still opens.
        var fresh = try MLSGroup(serialized: groups[1].serialized(), now: UnixTime.now + maxAge - 60)
        guard case .application = try fresh.process(late) else {
            Issue.record("expected application data")
            return
        }
    }

    @Test func removedMemberKeepsNoPrivateKeysOrEpochSecrets() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol"])
        let carolLeafKey = try #require(groups[2].privateKeys).leafKey.rawBytesForStorage
        let carolPathKeys = try #require(groups[2].privateKeys).pathKeys.values.map(\.rawBytesForStorage)
        let membership = groups[2].epochSecrets.membershipKey
        let initSecret = groups[2].epochSecrets.initSecret
        let lateFromBob = try groups[1].encrypt(Data("before the removal".utf8))
        try GroupTest.commit(by: 0, in: &groups) { try $0.commit(removing: [LeafIndex(2)]) }

        let carol = groups[2]
        #expect(!carol.isActive)
        #expect(carol.privateKeys == nil)
        let bytes = carol.serialized()
        for secret in [carolLeafKey, membership, initSecret] + carolPathKeys {
            #expect(!contains(bytes, secret))
        }
        // Reloading keeps it that way, and the last epoch's late messages still open.
        var restored = try MLSGroup(serialized: bytes)
        #expect(restored.privateKeys == nil)
        guard case .application(let app) = try restored.process(lateFromBob) else {
            Issue.record("expected application data")
            return
        }
        #expect(app.data == Data("before the removal".utf8))
        #expect(throws: GroupError.notAMember) { try restored.encrypt(Data("x".utf8)) }
    }

    /// The layout of state version 1 (with all eleven epoch secrets and no retention times), built
    /// from a current state, the three deleted secrets filled with `secrets`.
    static func version1Blob(of group: MLSGroup, secrets: Data) throws -> Data {
        var w = TLSWriter()
        w.write(UInt8(1))
        var configuration = TLSWriter()
        GroupStateEncoding.write(group.configuration, to: &configuration)
        // Version 1 ends the configuration after checkLifetimeOfTreeLeaves: drop the v2 and v3 fields.
        var v2Tail = TLSWriter()
        GroupStateEncoding.write(group.configuration.credentialsImmutable, to: &v2Tail)
        v2Tail.writeOptional(group.configuration.maxPastEpochAge) { w, value in w.write(value) }
        GroupStateEncoding.write(group.configuration.acceptNewMemberProposals, to: &v2Tail)
        GroupStateEncoding.write(group.configuration.acceptPrivateHandshakes, to: &v2Tail)
        w.writeFixed(configuration.bytes.dropLast(v2Tail.bytes.count))
        w.write(group.groupContext)
        GroupStateEncoding.write(group.tree, to: &w)
        w.write(group.ownLeafIndex)
        GroupStateEncoding.write(group.isActive, to: &w)
        GroupStateEncoding.write(try #require(group.privateKeys), to: &w)
        w.writeOpaque(group.signer.rawBytesForStorage)
        let s = group.epochSecrets
        for secret in [
            secrets, secrets, s.senderDataSecret, secrets, s.exporterSecret, s.externalSecret, s.confirmationKey,
            s.membershipKey, s.resumptionPSK, s.epochAuthenticator, s.initSecret,
        ] {
            w.writeOpaque(secret)
        }
        GroupStateEncoding.write(group.secretTree, to: &w)
        w.writeOpaque(group.transcriptHashes.confirmed)
        w.writeOpaque(group.transcriptHashes.interim)
        #expect(group.pendingProposals.isEmpty && group.pastEpochs.isEmpty && group.sentHandshakes.isEmpty)
        w.writeVector { _ in }
        w.writeVector { _ in }
        w.writeVector { _ in }
        w.writeVector { _ in }
        return w.data
    }
}
