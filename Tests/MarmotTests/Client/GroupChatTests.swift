import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Group chats between our own clients on the embedded relay: the admin rules are enforced
/// locally with typed errors before anything is published, and group data changes show as system
/// lines on every side.
@Suite(.serialized, .timeLimit(.minutes(3))) struct GroupChatTests {
    /// Alice creates a group with Bob and Carol (alice the only admin); both join.
    static func trio(relay url: String) async throws -> (alice: TestAccount, bob: TestAccount, carol: TestAccount, chat: GroupID) {
        let alice = try await TestAccount("alice", relayURLs: [url])
        let bob = try await TestAccount("bob", relayURLs: [url])
        let carol = try await TestAccount("carol", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage()
        _ = try await carol.client.publishKeyPackage()
        let created = try await alice.client.createGroup(name: "Trio", members: [bob.publicKey, carol.publicKey])
        #expect(created.chat.admins == [alice.publicKey])
        let (bobChat, _) = try await bob.waitForWelcome()
        #expect(bobChat.name == "Trio")
        #expect(Set(bobChat.members) == [alice.publicKey, bob.publicKey, carol.publicKey])
        // Each joiner's self-update, in whatever order they land.
        _ = try await alice.waitForCommit(epoch: 2)
        _ = try await carol.waitForWelcome()
        _ = try await alice.waitForCommit(epoch: 3)
        _ = try await bob.waitForCommit(epoch: 3)
        return (alice, bob, carol, created.chat.id)
    }

    /// `body` fails with `MarmotClientError.notAdmin(id)`.
    static func expectNotAdmin(_ id: GroupID, _ body: () async throws -> Void) async {
        let error = await #expect(throws: MarmotClientError.self) { try await body() }
        guard case .notAdmin(id)? = error else {
            Issue.record("expected notAdmin(\(id)), got \(String(describing: error))")
            return
        }
    }

    static func shutdown(_ accounts: TestAccount...) async {
        for account in accounts { await account.shutdown() }
    }

    /// A member that is not an admin cannot add, remove or rename: refused locally with
    /// `.notAdmin`, nothing is published (the epoch stays), and the admin list is unchanged.
    @Test func nonAdminAddRemoveRenameAreRefused() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, id) = try await Self.trio(relay: url)
        let dave = Keys.generate().publicKey
        let epoch = try #require(try await bob.client.chat(id)).epoch
        await Self.expectNotAdmin(id) { _ = try await bob.client.addMembers([dave], to: id) }
        await Self.expectNotAdmin(id) { _ = try await bob.client.removeMembers([carol.publicKey], from: id) }
        await Self.expectNotAdmin(id) { _ = try await bob.client.updateGroupData(id, name: "Mine now") }
        await Self.expectNotAdmin(id) { _ = try await bob.client.updateGroupData(id, admins: [bob.publicKey]) }
        let after = try #require(try await bob.client.chat(id))
        #expect(after.epoch == epoch)
        #expect(after.name == "Trio")
        #expect(after.admins == [alice.publicKey])
        await Self.shutdown(alice, bob, carol)
        await server.stop()
    }

    /// The only admin cannot leave (it would leave the group without one) nor demote itself, and
    /// cannot strip the admin list; an admin never removes itself by commit.
    @Test func lastAdminCannotLeaveOrStepDown() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, id) = try await Self.trio(relay: url)
        await #expect(throws: GroupChangeError.lastAdmin(id)) { _ = try await alice.client.leaveGroup(id) }
        await #expect(throws: GroupChangeError.lastAdmin(id)) { _ = try await alice.client.selfDemote(id) }
        await #expect(throws: GroupChangeError.lastAdmin(id)) { _ = try await alice.client.updateGroupData(id, admins: []) }
        await #expect(throws: GroupChangeError.cannotTargetSelf) {
            _ = try await alice.client.removeMembers([alice.publicKey], from: id)
        }
        let stranger = Keys.generate().publicKey
        await #expect(throws: GroupChangeError.adminNotMember(stranger)) {
            _ = try await alice.client.updateGroupData(id, admins: [alice.publicKey, stranger])
        }
        await #expect(throws: GroupChangeError.alreadyMember(bob.publicKey)) {
            _ = try await alice.client.addMembers([bob.publicKey], to: id)
        }
        #expect(try await alice.client.chat(id)?.status == .active)
        #expect(try await alice.client.chat(id)?.epoch == 3)
        await Self.shutdown(alice, bob, carol)
        await server.stop()
    }

    /// Rename and promotion reach every member with system lines; an admin that leaves first
    /// steps down (MIP-03), the remaining admin commits its SelfRemove, and its chat goes inactive.
    @Test func renamePromoteAndAdminLeaves() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, id) = try await Self.trio(relay: url)

        let renamed = try await alice.client.updateGroupData(id, name: "Renamed", description: "new words")
        #expect(renamed.chat.name == "Renamed")
        _ = try await bob.waitForCommit(epoch: 4, by: alice.publicKey)
        #expect(try await bob.client.chat(id)?.name == "Renamed")
        #expect(try await bob.client.chat(id)?.groupDescription == "new words")
        let line = try #require(try await bob.allMessages(id).last { $0.deliveryState == .notice })
        #expect(SystemNotice(content: line.content) == SystemNotice(change: .renamed, actor: alice.publicKey, subject: alice.publicKey))

        _ = try await alice.client.updateGroupData(id, admins: [alice.publicKey, bob.publicKey])
        _ = try await carol.waitForCommit(epoch: 5, by: alice.publicKey)
        #expect(Set(try #require(try await carol.client.chat(id)).admins) == [alice.publicKey, bob.publicKey])
        let promoted = try #require(try await carol.allMessages(id).last { $0.deliveryState == .notice })
        #expect(SystemNotice(content: promoted.content) == SystemNotice(change: .promoted, actor: alice.publicKey, subject: bob.publicKey))

        // Bob (admin) removes Carol; then Alice leaves: she steps down, Bob commits her SelfRemove.
        let removal = try await bob.client.removeMembers([carol.publicKey], from: id)
        #expect(removal.epoch == 6)
        _ = try await alice.waitForCommit(epoch: 6, by: bob.publicKey)
        _ = try await alice.client.leaveGroup(id)
        _ = try await bob.waitForCommit(epoch: 7, by: alice.publicKey)
        #expect(try await bob.waitForCommit(epoch: 8, by: bob.publicKey) == bob.publicKey)
        var status = try await alice.client.chat(id)?.status
        for _ in 0..<50 where status != .inactive {
            try await Task.sleep(for: .milliseconds(100))
            status = try await alice.client.chat(id)?.status
        }
        #expect(status == .inactive)
        let bobChat = try #require(try await bob.client.chat(id))
        #expect(bobChat.members == [bob.publicKey])
        #expect(bobChat.admins == [bob.publicKey])
        let lines = try await bob.allMessages(id).filter { $0.deliveryState == .notice }.compactMap { SystemNotice(content: $0.content) }
        #expect(lines.contains(SystemNotice(change: .demoted, actor: alice.publicKey, subject: alice.publicKey)))
        #expect(lines.contains(SystemNotice(change: .left, actor: bob.publicKey, subject: alice.publicKey)))
        await Self.shutdown(alice, bob, carol)
        await server.stop()
    }

    /// Removing an admin also takes it off the admin list in the same commit (as MDK does), so
    /// no departed member stays listed as admin.
    @Test func removingAnAdminDropsItFromTheAdmins() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, id) = try await Self.trio(relay: url)
        _ = try await alice.client.updateGroupData(id, admins: [alice.publicKey, bob.publicKey])
        _ = try await carol.waitForCommit(epoch: 4, by: alice.publicKey)
        let removed = try await alice.client.removeMembers([bob.publicKey], from: id)
        #expect(removed.chat.admins == [alice.publicKey])
        _ = try await carol.waitForCommit(epoch: 5, by: alice.publicKey)
        let carolChat = try #require(try await carol.client.chat(id))
        #expect(carolChat.admins == [alice.publicKey])
        #expect(Set(carolChat.members) == [alice.publicKey, carol.publicKey])
        await Self.shutdown(alice, bob, carol)
        await server.stop()
    }

    /// A member without a key package fails the whole creation, naming it, before any group exists.
    @Test func createGroupFailsWhenAMemberHasNoKeyPackage() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var options = ClientHarness.options
        options.keyPackageFetchTimeout = .seconds(2)
        let alice = try await TestAccount("alice", relayURLs: [url], options: options)
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage()
        let missing = Keys.generate().publicKey
        let error = await #expect(throws: MarmotClientError.self) {
            _ = try await alice.client.createGroup(name: "x", members: [bob.publicKey, missing])
        }
        if case .noKeyPackage(let who, _)? = error {
            #expect(who == missing)
        } else {
            Issue.record("expected noKeyPackage naming the member, got \(String(describing: error))")
        }
        #expect(try await alice.client.chats().isEmpty)
        await Self.shutdown(alice, bob)
        await server.stop()
    }
}
