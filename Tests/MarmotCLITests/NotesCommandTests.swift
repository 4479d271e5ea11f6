import Foundation
import Testing
import TestSupport

/// `marmot notes` and `marmot devices` (issue 29) through the CLI, against a `marmot relay` subprocess.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct NotesCommandTests {
    @Test func notesAreWrittenListedAndFirstInChats() async throws {
        let relay = try await TestRelay.start()
        let home = try TestHome("notes")
        defer { home.remove() }
        do {
            try await Self.run(relay: relay, home: home)
        } catch {
            await relay.stop()
            throw error
        }
        await relay.stop()
    }

    private static func run(relay: TestRelay, home: TestHome) async throws {
        _ = try await CLI.createAccount(home, relay: relay.url)

        let empty = try await CLI.run(["notes", "--relay", relay.url], home: home)
        #expect(empty.status == 0, "\(empty)")
        #expect(empty.stdout.contains("No notes yet."), "\(empty)")

        let written = try await CLI.run(["notes", "buy", "milk", "--json", "--relay", relay.url], home: home)
        #expect(written.status == 0, "\(written)")
        let object = try written.object()
        #expect(object["delivery"] as? String == "sent", "\(written)")
        let chat = try #require(object["chat"] as? String)

        let listed = try await CLI.run(["notes", "--json", "--relay", relay.url], home: home)
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.objects.contains { $0["text"] as? String == "buy milk" && $0["mine"] as? Bool == true }, "\(listed)")

        let chats = try await CLI.run(["chats", "--json", "--relay", relay.url], home: home)
        #expect(chats.status == 0, "\(chats)")
        #expect(chats.objects.first?["id"] as? String == chat, "\(chats)")
        #expect(chats.objects.first?["name"] as? String == "Notes", "\(chats)")
        #expect(chats.objects.first?["notes"] as? Bool == true, "\(chats)")
        #expect(chats.objects.first?["convergence"] as? String == "settled", "\(chats)")
        #expect(chats.objects.first?["convergenceLabel"] == nil, "\(chats)")

        let devices = try await CLI.run(["devices", "--json", "--relay", relay.url], home: home)
        #expect(devices.status == 0, "\(devices)")
        #expect(devices.objects.count == 1, "\(devices)")
        #expect(devices.objects.first?["status"] as? String == "this_device", "\(devices)")

        let unknown = try await CLI.run(["devices", "link", "00112233aabbccdd", "--relay", relay.url], home: home)
        #expect(unknown.status == 1, "\(unknown)")
        #expect(unknown.stderr.contains("00112233aabbccdd"), "\(unknown)")
        let removeSelf = try await CLI.run(
            ["devices", "remove", try #require(devices.objects.first?["id"] as? String), "--relay", relay.url], home: home)
        #expect(removeSelf.status == 1, "\(removeSelf)")
        #expect(removeSelf.stderr.contains("cannot remove itself"), "\(removeSelf)")

        // `group add-devices`: listed in the help; with no other linked device, refused (exit 1).
        let help = try await CLI.run(["group", "--help"], home: home)
        #expect(help.stdout.contains("add-devices"), "\(help)")
        let none = try await CLI.run(["group", "add-devices", chat, "--relay", relay.url], home: home)
        #expect(none.status == 1, "\(none)")
        #expect(none.stderr.contains("No other linked device"), "\(none)")
    }
}
