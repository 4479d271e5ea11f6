import Foundation
import Testing
import TestSupport

/// One `marmot` home talking to the MDK 0.8.0 peer (shared/interop) through rust-nostr's relay.
@Suite(.serialized, .timeLimit(.minutes(4)), .enabled(if: InteropKit.shouldRun, "interop kit (shared/interop + venv) not found"))
struct MDKPeerCLITests {
    @Test func sendToMDKAndListenForItsReply() async throws {
        let home = try TestHome("mdk")
        defer { home.remove() }
        try await MDKOnRelay.run(publishKeyPackage: true) { peer in
            let (mdk, mdkNpub, url) = (peer.mdk, peer.npub, peer.url)

            let ours = try await CLI.createAccount(home, relay: url)
            let sent = try await CLI.run(["send", mdkNpub, "hello mdk, from the marmot cli", "--json", "--relay", url], home: home)
            #expect(sent.status == 0, "\(sent)")
            #expect(try sent.object()["delivery"] as? String == "sent")

            let welcome = try await mdk.waitForEvent("welcome")
            #expect(welcome.string("from") == ours)
            let group = try #require(welcome.string("group_id"))
            let got = try await mdk.waitForEvent("message") { $0.string("text") == "hello mdk, from the marmot cli" }
            #expect(got.string("from") == ours)

            let heard = try await peer.heardByListen(mdkSends: "hello cli, from mdk", in: group, home: home)
            #expect(heard["peer"] as? String == mdkNpub)

            let errors = await mdk.reportedErrors
            #expect(errors.isEmpty, "MDK rejected: \(errors)")
        }
    }

    /// MDK starts a chat with us: `marmot listen` shows the invitation without joining, `marmot
    /// accept` joins, and both sides then read each other's messages.
    @Test func mdkInvitesUsAndWeAcceptThroughTheBinary() async throws {
        let home = try TestHome("mdk-invites")
        defer { home.remove() }
        try await MDKOnRelay.run { peer in
            let (mdk, mdkNpub, url) = (peer.mdk, peer.npub, peer.url)
            let ours = try await CLI.createAccount(home, relay: url)

            let listen = try CLI.start(["listen", "--json", "--timeout", "60", "--relay", url], home: home, name: "marmot listen")
            let created = try await mdk.call(["cmd": "create_chat", "peer_npub": ours])
            let group = try #require(created.string("group_id"))
            let invite = try await TwoHomesTests.next(listen, type: "invite") { $0["peer"] as? String == mdkNpub }
            let inviteID = try #require(invite["invite"] as? String)
            await listen.stop()
            #expect(await listen.exitStatus(timeout: 10) == 0)

            // Listening joined nothing: the chat list holds only the invitation.
            let before = try await CLI.run(["chats", "--json", "--relay", url], home: home)
            #expect(before.objects.map { $0["type"] as? String } == ["invite"], "\(before)")

            let accepted = try await CLI.run(["accept", inviteID, "--json", "--relay", url], home: home)
            #expect(accepted.status == 0, "\(accepted)")
            let chat = try #require(try accepted.object()["chat"] as? String)
            #expect(chat.lowercased() == group.lowercased(), "chat \(chat), MDK group \(group)")

            let sent = try await CLI.run(["send", chat, "hello mdk, I accepted", "--json", "--relay", url], home: home)
            #expect(sent.status == 0, "\(sent)")
            let got = try await mdk.waitForEvent("message") { $0.string("text") == "hello mdk, I accepted" }
            #expect(got.string("from") == ours)

            let heard = try await peer.heardByListen(mdkSends: "welcome aboard", in: group, home: home)
            #expect(heard["peer"] as? String == mdkNpub)

            let errors = await mdk.reportedErrors
            #expect(errors.isEmpty, "MDK rejected: \(errors)")
        }
    }

    /// MDK invites us to a named group of three: the invitation and the joined chat say so (name,
    /// member count), as the core words them.
    @Test func mdkGroupInvitationShowsItsNameAndMembers() async throws {
        let home = try TestHome("mdk-group"), third = try TestHome("mdk-group-third")
        defer {
            home.remove()
            third.remove()
        }
        try await MDKOnRelay.run { peer in
            let (mdk, mdkNpub, url) = (peer.mdk, peer.npub, peer.url)
            let ours = try await CLI.createAccount(home, relay: url)
            let theirs = try await CLI.createAccount(third, relay: url)

            let created = try await mdk.call([
                "cmd": "create_group", "members": [ours, theirs], "name": "Climbing", "description": "", "admins": [mdkNpub],
            ])
            let group = try #require(created.string("group_id"))

            var row: [String: Any]?
            for _ in 0..<10 where row == nil {
                let listed = try await CLI.run(["invites", "--json", "--relay", url], home: home)
                row = listed.objects.first { $0["inviter"] as? String == mdkNpub }
            }
            let invite = try #require(row, "no invitation from MDK")
            #expect(invite["members"] as? Int == 3, "\(invite)")
            #expect(invite["groupName"] as? String == "Climbing", "\(invite)")
            #expect((invite["title"] as? String)?.contains("Climbing") == true, "\(invite)")

            let id = try #require(invite["id"] as? String)
            let accepted = try await CLI.run(["accept", id, "--json", "--relay", url], home: home)
            #expect(accepted.status == 0, "\(accepted)")
            #expect((try accepted.object()["chat"] as? String)?.lowercased() == group.lowercased())

            let chats = try await CLI.run(["chats", "--json", "--relay", url], home: home)
            let chat = try #require(chats.objects.first { $0["type"] as? String == "chat" }, "\(chats)")
            #expect(chat["group"] as? Bool == true, "\(chat)")
            #expect(chat["members"] as? Int == 3, "\(chat)")
            #expect(chat["name"] as? String == "Climbing", "\(chat)")
            // MDK 0.8.0 makes v1 groups.
            #expect(chat["protocol"] as? String == "v1", "\(chat)")
            let text = try await CLI.run(["chats", "--relay", url], home: home)
            #expect(text.stdout.contains("Climbing (3 members)  Marmot v1"), "\(text)")

            let errors = await mdk.reportedErrors
            #expect(errors.isEmpty, "MDK rejected: \(errors)")
        }
    }
}
