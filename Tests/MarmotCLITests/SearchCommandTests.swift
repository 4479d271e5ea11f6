import Foundation
import Testing
import TestSupport

/// `marmot search` (issue 48) through the CLI with a real home and `marmot relay`: words folded for
/// case and accents, the last one a prefix, newest first, `--chat`, `--limit` and `--json`.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct SearchCommandTests {
    @Test func searchFindsNotesNewestFirstWithFoldingAndLimits() async throws {
        let relay = try await TestRelay.start()
        let home = try TestHome("search")
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
        for text in ["Lunch at the Café", "nothing here", "café tomorrow?"] {
            let sent = try await CLI.run(["notes", text, "--relay", relay.url], home: home)
            #expect(sent.status == 0, "\(sent)")
            try await Task.sleep(for: .milliseconds(1100))  // distinct seconds: a stable order
        }
        let found = try await CLI.run(["search", "CAFE", "--json", "--relay", relay.url], home: home)
        #expect(found.status == 0, "\(found)")
        #expect(found.objects.compactMap { $0["snippet"] as? String }.map { $0.contains("tomorrow") } == [true, false], "\(found)")
        let chat = try #require(found.objects.first?["chat"] as? String)
        #expect(found.objects.allSatisfy { $0["message"] is String && $0["sender"] is String }, "\(found)")

        let prefix = try await CLI.run(["search", "cafe tomor", "--chat", chat, "--limit", "5", "--json", "--relay", relay.url], home: home)
        #expect(prefix.status == 0, "\(prefix)")
        #expect(prefix.objects.count == 1, "\(prefix)")
        // Only the last word is a prefix: "caf" before another word must be a whole word.
        let notAWord = try await CLI.run(["search", "caf tomorrow", "--json", "--relay", relay.url], home: home)
        #expect(notAWord.status == 0 && notAWord.objects.isEmpty, "\(notAWord)")

        let limited = try await CLI.run(["search", "café", "--limit", "1", "--relay", relay.url], home: home)
        #expect(limited.status == 0, "\(limited)")
        #expect(limited.stdout.contains("café tomorrow?") && !limited.stdout.contains("Lunch"), "\(limited)")

        let none = try await CLI.run(["search", "pizza", "--json", "--relay", relay.url], home: home)
        #expect(none.status == 0 && none.objects.isEmpty, "\(none)")
    }
}
