import Foundation
import Testing
import TestSupport

/// Issue 28's group pictures through the `marmot` binary: two homes on one `marmot relay` (which
/// serves Blossom on its own address): `group image PATH` by the admin, `group image --save` by
/// the member (the same bytes), `chats --json` showing the picture's state, `--clear`, and the
/// usage errors.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct GroupImageCommandTests {
    @Test func setSaveListAndClearAGroupPicture() async throws {
        let relay = try await TestRelay.start()
        defer { Task { await relay.stop() } }
        let alice = try TestHome("alice-picture"), bob = try TestHome("bob-picture")
        defer {
            alice.remove()
            bob.remove()
        }
        _ = try await CLI.createAccount(alice, relay: relay.url)
        let bobNpub = try await CLI.createAccount(bob, relay: relay.url)
        let chatID = try await CLI.openAcceptedChat(alice, with: bobNpub, peer: bob, relays: [relay.url])

        let picture = alice.url.appendingPathComponent("team.png")
        var bytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        bytes.append(Data((0..<25_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
        try bytes.write(to: picture)
        let set = try await CLI.run(["group", "image", chatID, picture.path, "--json", "--relay", relay.url], home: alice)
        #expect(set.status == 0, "\(set)")
        #expect(try set.object()["change"] as? String == "picture set", "\(set)")
        #expect(try set.object()["image"] as? String == "available", "\(set)")

        let out = bob.url.appendingPathComponent("saved.png")
        let saved = try await CLI.run(["group", "image", chatID, "--save", out.path, "--json", "--relay", relay.url], home: bob)
        #expect(saved.status == 0, "\(saved)")
        #expect(try saved.object()["bytes"] as? Int == bytes.count)
        #expect(try Data(contentsOf: out) == bytes)
        let chats = try await CLI.run(["chats", "--json", "--relay", relay.url], home: bob)
        #expect(chats.objects.first { $0["id"] as? String == chatID }?["image"] as? String == "available", "\(chats)")
        let text = try await CLI.run(["chats", "--relay", relay.url], home: bob)
        #expect(text.stdout.contains("[picture: available]"), "\(text)")

        let cleared = try await CLI.run(["group", "image", chatID, "--clear", "--json", "--relay", relay.url], home: alice)
        #expect(cleared.status == 0, "\(cleared)")
        #expect(try cleared.object()["image"] as? String == "none", "\(cleared)")
        let none = try await CLI.run(["group", "image", chatID, "--save", out.path, "--relay", relay.url], home: alice)
        #expect(none.status == 1, "\(none)")
        #expect(none.stderr.contains("no group picture"), "\(none)")

        let usage = try await CLI.run(["group", "image", chatID, "--relay", relay.url], home: alice)
        #expect(usage.status == 2, "\(usage)")
        let missing = try await CLI.run(["group", "image", chatID, "/nonexistent/x.png", "--relay", relay.url], home: alice)
        #expect(missing.status == 2, "\(missing)")
        let notPicture = alice.url.appendingPathComponent("notes.txt")
        try Data("just text".utf8).write(to: notPicture)
        let refused = try await CLI.run(["group", "image", chatID, notPicture.path, "--relay", relay.url], home: alice)
        #expect(refused.status != 0, "\(refused)")
        #expect(refused.stderr.contains("PNG, JPEG, GIF or WebP"), "\(refused)")
    }
}
