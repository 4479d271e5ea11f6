import Foundation
import Testing
@testable import MLS

/// Create, join by Welcome, application messages and state persistence (RFC 9420 §11, §12.4.3.1, §6.3).
struct GroupLifecycleTests {
    @Test func createdGroupIsEpochZeroWithOneMember() throws {
        let alice = GroupTestClient("alice")
        let group = try alice.createGroup()
        #expect(group.epoch == 0)
        #expect(group.members.count == 1)
        #expect(group.ownLeafIndex == LeafIndex(0))
        #expect(group.extensions == GroupTestClient.marmotExtensions)
        #expect(group.groupContext.confirmedTranscriptHash.isEmpty)
        #expect(group.isActive)
        #expect(String(describing: group).contains("redacted"))
    }

    @Test func creatorLeafMustSupportRequiredCapabilities() throws {
        let alice = GroupTestClient("alice")
        let lacking = Capabilities(
            versions: [.mls10], cipherSuites: [.mls128X25519AES128GCMSHA256Ed25519], extensions: [], proposals: [],
            credentials: [.basic])
        #expect(throws: GroupError.self) {
            try MLSGroup.create(
                groupID: GroupID(Data([1])), signer: alice.signer, credential: alice.credential, capabilities: lacking,
                groupContextExtensions: GroupTestClient.marmotExtensions)
        }
    }

    @Test func addByWelcomeThenMessagesBothWays() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        GroupTest.expectInSync(groups)
        #expect(groups[1].epoch == 1)
        #expect(groups[1].ownLeafIndex == LeafIndex(1))
        #expect(groups[1].members.map(\.credential) == [.basic(identity: Data("alice".utf8)), .basic(identity: Data("bob".utf8))])
        #expect(try groups[0].exporter(label: "marmot", context: Data("x".utf8), length: 32)
            == (try groups[1].exporter(label: "marmot", context: Data("x".utf8), length: 32)))
        try GroupTest.send("hello bob", from: 0, in: &groups)
        try GroupTest.send("hi alice", from: 1, in: &groups)
        try GroupTest.send("again", from: 1, in: &groups)
    }

    @Test func welcomeCarriesRatchetTreeAndJoinerSeesCommitterPath() throws {
        let alice = GroupTestClient("alice")
        var group = try alice.createGroup()
        let (bobPackage, bobKeys) = try GroupTestClient("bob").keyPackage()
        let pending = try group.commit(adding: [bobPackage])
        let info = try #require(pending.groupInfo)
        #expect(try info.extensions.payload(RatchetTreeNodes.self) == pending.newGroup.tree.ratchetTreeNodes)
        #expect(pending.summary.added.map(\.leafIndex) == [LeafIndex(1)])
        #expect(group.epoch == 0, "the pending commit is not adopted")
        // An Add-only commit needs no path (§12.4); the creator sent none, so the joiner has no path keys.
        guard case .privateMessage = pending.message.body else {
            Issue.record("commits are PrivateMessages by default")
            return
        }
        let bob = try MLSGroup.join(welcome: try #require(pending.welcome), keyPackage: bobPackage, privateMaterial: bobKeys)
        #expect(bob.epochAuthenticator == pending.newGroup.epochAuthenticator)
        // Joining with the tree given explicitly works too.
        let again = try MLSGroup.join(
            welcome: try #require(pending.welcome), keyPackage: bobPackage, privateMaterial: bobKeys,
            ratchetTree: pending.newGroup.tree.ratchetTreeNodes)
        #expect(again.epochAuthenticator == bob.epochAuthenticator)
    }

    @Test func threeMembersAllTalk() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol"])
        GroupTest.expectInSync(groups)
        for sender in groups.indices { try GroupTest.send("from \(sender)", from: sender, in: &groups) }
    }

    @Test func serializeRestoreMidConversationAndContinue() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        try GroupTest.send("one", from: 0, in: &groups)
        let late = try groups[0].encrypt(Data("delivered after restart".utf8))
        let bytes = groups[1].serialized()
        #expect(bytes.first == 3, "version byte")
        var restored = try MLSGroup(serialized: bytes)
        #expect(restored.serialized() == bytes)
        #expect(restored.epochAuthenticator == groups[1].epochAuthenticator)
        guard case .application(let app) = try restored.process(late) else {
            Issue.record("expected application data")
            return
        }
        #expect(app.data == Data("delivered after restart".utf8))
        groups[1] = restored
        try GroupTest.send("two", from: 1, in: &groups)
        try GroupTest.commit(by: 1, in: &groups) { try $0.selfUpdate() }
        GroupTest.expectInSync(groups)
        let aliceRestored = try MLSGroup(serialized: groups[0].serialized())
        groups[0] = aliceRestored
        try GroupTest.send("three", from: 0, in: &groups)
    }

    @Test func restoreRejectsGarbage() throws {
        let group = try GroupTestClient("alice").createGroup()
        let bytes = group.serialized()
        #expect(throws: GroupError.self) { try MLSGroup(serialized: Data()) }
        #expect(throws: GroupError.self) { try MLSGroup(serialized: Data([4]) + bytes.dropFirst()) }
        #expect(throws: GroupError.self) { try MLSGroup(serialized: bytes.dropLast()) }
        #expect(throws: GroupError.self) { try MLSGroup(serialized: bytes + Data([0])) }
    }

    @Test func applicationKeysAreSingleUse() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let message = try groups[0].encrypt(Data("once".utf8))
        _ = try groups[1].process(message)
        let before = groups[1].serialized()
        #expect(throws: GroupError.keyAlreadyUsed(generation: 0)) { try groups[1].process(message) }
        #expect(groups[1].serialized() == before)
    }

    @Test func outOfOrderWithinAnEpoch() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let messages = try (0..<5).map { try groups[0].encrypt(Data("m\($0)".utf8)) }
        for index in [3, 0, 4, 2, 1] {
            guard case .application(let app) = try groups[1].process(messages[index]) else {
                Issue.record("expected application data")
                continue
            }
            #expect(app.data == Data("m\(index)".utf8))
        }
    }

    @Test func ownApplicationMessageIsRecognised() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let message = try groups[0].encrypt(Data("echo".utf8))
        #expect(throws: GroupError.ownMessage) { try groups[0].process(message) }
    }
}
