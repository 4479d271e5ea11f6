import Foundation
import Testing
import TestSupport

/// `marmot group …` between three homes through one `marmot relay`.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct GroupCommandTests {
    @Test func createAcceptRenameMembersAndAdminRules() async throws {
        let relay = try await TestRelay.start()
        let alice = try TestHome("alice"), bob = try TestHome("bob"), carol = try TestHome("carol")
        defer {
            alice.remove()
            bob.remove()
            carol.remove()
        }
        let aliceNpub = try await CLI.createAccount(alice, relay: relay.url)
        let bobNpub = try await CLI.createAccount(bob, relay: relay.url)
        let carolNpub = try await CLI.createAccount(carol, relay: relay.url)

        let created = try await CLI.run(
            ["group", "create", "--name", "Climbing", bobNpub, carolNpub, "--json", "--relay", relay.url], home: alice)
        #expect(created.status == 0, "\(created)")
        let chat = try #require(try created.object()["chat"] as? String)
        #expect(try created.object()["members"] as? Int == 3)

        for home in [bob, carol] {
            var inviteID: String?
            for _ in 0..<10 where inviteID == nil {
                inviteID = try await CLI.run(["invites", "--json", "--relay", relay.url], home: home).objects.first?["id"] as? String
            }
            let accepted = try await CLI.run(["accept", try #require(inviteID), "--relay", relay.url], home: home)
            #expect(accepted.status == 0, "\(accepted)")
        }

        let members = try await CLI.run(["group", "members", chat, "--json", "--relay", relay.url], home: alice)
        #expect(members.status == 0, "\(members)")
        let list = try members.object()
        #expect(Set(list["members"] as? [String] ?? []) == [aliceNpub, bobNpub, carolNpub])
        #expect(list["admins"] as? [String] == [aliceNpub])
        #expect(list["canManage"] as? Bool == true)

        let refused = try await CLI.run(["group", "rename", chat, "Mine now", "--relay", relay.url], home: bob)
        #expect(refused.status != 0, "\(refused)")
        #expect(refused.stderr.contains("admin"), "\(refused)")

        let renamed = try await CLI.run(["group", "rename", chat, "Climbing crew", "--relay", relay.url], home: alice)
        #expect(renamed.status == 0, "\(renamed)")
        var name: String?
        for _ in 0..<10 where name != "Climbing crew" {
            name = try await CLI.run(["chats", "--json", "--relay", relay.url], home: bob).objects.first?["name"] as? String
        }
        #expect(name == "Climbing crew")

        let invalid = try await CLI.run(["group", "add", chat, "npub1nope", "--relay", relay.url], home: alice)
        #expect(invalid.status == 4, "\(invalid)")
        await relay.stop()
    }
}
