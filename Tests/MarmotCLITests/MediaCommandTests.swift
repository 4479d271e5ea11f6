import Foundation
import Testing
import TestSupport

/// Issue 28 through the `marmot` binary: two homes on one `marmot relay` (which serves Blossom on
/// its own address): `send --file`, `messages` listing the attachment, `media save` writing the
/// same bytes, `blossom list|add|remove`, and the errors a user meets.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct MediaCommandTests {
    @Test func sendAFileListItAndSaveIt() async throws {
        let relay = try await TestRelay.start()
        defer { Task { await relay.stop() } }
        let alice = try TestHome("alice-media"), bob = try TestHome("bob-media")
        defer {
            alice.remove()
            bob.remove()
        }
        _ = try await CLI.createAccount(alice, relay: relay.url)
        let bobNpub = try await CLI.createAccount(bob, relay: relay.url)
        let chatID = try await CLI.openAcceptedChat(alice, with: bobNpub, peer: bob, relays: [relay.url])

        // The relay's own Blossom server is used until one is named.
        let servers = try await CLI.run(["blossom", "--json", "--relay", relay.url], home: alice)
        #expect(servers.status == 0, "\(servers)")
        let blossomURL = relay.url.replacingOccurrences(of: "ws://", with: "http://")
        #expect(servers.objects.map { $0["url"] as? String } == [blossomURL], "\(servers)")
        #expect(servers.objects.first?["named"] as? Bool == false)

        let picture = alice.url.appendingPathComponent("view.png")
        var bytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        bytes.append(Data((0..<30_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }))
        try bytes.write(to: picture)
        let sent = try await CLI.run(
            ["send", chatID, "--file", picture.path, "the", "view", "--json", "--relay", relay.url], home: alice)
        #expect(sent.status == 0, "\(sent)")
        #expect(try sent.object()["delivery"] as? String == "sent")

        let listed = try await CLI.run(["messages", chatID, "--json", "--relay", relay.url], home: bob)
        #expect(listed.status == 0, "\(listed)")
        let row = try #require(listed.objects.first { $0["text"] as? String == "the view" }, "\(listed)")
        let messageID = try #require(row["id"] as? String)
        let attachment = try #require((row["attachments"] as? [[String: Any]])?.first, "\(row)")
        #expect(attachment["filename"] as? String == "view.png")
        #expect(attachment["mimeType"] as? String == "image/png")
        #expect(attachment["state"] as? String == "remote")
        let text = try await CLI.run(["messages", chatID, "--relay", relay.url], home: bob)
        #expect(text.stdout.contains("📎 [0] view.png · image/png"), "\(text)")

        let folder = bob.url.appendingPathComponent("saved", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let saved = try await CLI.run(["media", "save", chatID, messageID, folder.path, "--json", "--relay", relay.url], home: bob)
        #expect(saved.status == 0, "\(saved)")
        #expect(try saved.object()["bytes"] as? Int == bytes.count)
        #expect(try Data(contentsOf: folder.appendingPathComponent("view.png")) == bytes)

        // Alice's own copy opens without a download.
        let own = alice.url.appendingPathComponent("own.png")
        let savedOwn = try await CLI.run(["media", "save", chatID, messageID, own.path, "--relay", relay.url], home: alice)
        #expect(savedOwn.status == 0, "\(savedOwn)")
        #expect(try Data(contentsOf: own) == bytes)
    }

    @Test func errorsAUserMeets() async throws {
        let relay = try await TestRelay.start()
        defer { Task { await relay.stop() } }
        let alice = try TestHome("alice-media-errors"), bob = try TestHome("bob-media-errors")
        defer {
            alice.remove()
            bob.remove()
        }
        _ = try await CLI.createAccount(alice, relay: relay.url)
        let bobNpub = try await CLI.createAccount(bob, relay: relay.url)
        let sent = try await CLI.run(["send", bobNpub, "plain", "--json", "--relay", relay.url], home: alice)
        #expect(sent.status == 0, "\(sent)")
        let chatID = try #require(try sent.object()["chat"] as? String)
        let messageID = try #require(try sent.object()["message"] as? String)

        let missing = try await CLI.run(["send", chatID, "--file", "/nonexistent/x.png", "--relay", relay.url], home: alice)
        #expect(missing.status == 2, "\(missing)")
        #expect(missing.stderr.contains("no such file"), "\(missing)")
        let empty = try await CLI.run(["send", chatID, "--relay", relay.url], home: alice)
        #expect(empty.status == 2, "\(empty)")

        let history = try await CLI.run(["messages", chatID, "--json", "--relay", relay.url], home: alice)
        let plainID = try #require(history.objects.first?["id"] as? String ?? messageID as String?)
        let none = try await CLI.run(["media", "save", chatID, plainID, alice.url.path, "--relay", relay.url], home: alice)
        #expect(none.status == 1, "\(none)")
        #expect(none.stderr.contains("has no attachment"), "\(none)")

        let refused = try await CLI.run(["blossom", "add", "ftp://files.example.com", "--relay", relay.url], home: alice)
        #expect(refused.status != 0, "\(refused)")
        let added = try await CLI.run(["blossom", "add", "https://blossom.example.com", "--json", "--relay", relay.url], home: alice)
        #expect(added.status == 0, "\(added)")
        #expect(added.objects.map { $0["url"] as? String } == ["https://blossom.example.com"], "\(added)")
        #expect(added.objects.first?["named"] as? Bool == true)
        let removed = try await CLI.run(["blossom", "remove", "https://blossom.example.com", "--json", "--relay", relay.url], home: alice)
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.objects.first?["named"] as? Bool == false, "\(removed)")
    }
}
