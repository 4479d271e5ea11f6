import Foundation
import Nostr
import Testing
import TestSupport

/// Failures are one line on stderr with a distinct exit code.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct ErrorExitCodeTests {
    @Test func usageErrorsExitWith2() async throws {
        let unknown = try await CLI.run(["chats", "--no-such-option"], home: nil)
        #expect(unknown.status == 2, "\(unknown)")
        let home = try TestHome("usage")
        defer { home.remove() }
        let badRelay = try await CLI.run(["chats", "--relay", "http://example.com"], home: home)
        #expect(badRelay.status == 2, "\(badRelay)")
        #expect(badRelay.stderr.contains("invalid relay URL"), "\(badRelay)")
        let blank = try await CLI.run(["send", "npub1x", "  "], home: home)
        #expect(blank.status == 2 && blank.stderr.contains("the message is empty"), "\(blank)")
    }

    @Test func anUnreachableRelayExitsWith6() async throws {
        let home = try TestHome("unreachable")
        defer { home.remove() }
        let result = try await CLI.run(["account", "create", "--relay", "ws://127.0.0.1:1"], home: home)
        #expect(result.status == 6, "\(result)")
        #expect(result.stderr.contains("no relay accepted this account's key package"), "\(result)")
        #expect(!result.stderr.contains("nsec1"), "\(result)")
    }

    @Test func commandsWithoutAnAccountExitWith3() async throws {
        let relay = try await TestRelay.start()
        let home = try TestHome("no-account")
        defer { home.remove() }
        for arguments in [["account", "show"], ["account", "export"], ["chats", "--relay", relay.url],
                          ["send", Keys.generate().publicKey.npub, "hi", "--relay", relay.url], ["listen"], ["chats"],
                          ["invites"], ["accept", "abcd"], ["decline", "abcd"]] {
            let result = try await CLI.run(arguments, home: home)
            #expect(result.status == 3, "\(result)")
            #expect(result.stderr.contains("no account"), "\(result)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        }
        await relay.stop()
    }

    @Test func invalidNpubExitsWith4AndAMissingKeyPackageWith5() async throws {
        let relay = try await TestRelay.start()
        let home = try TestHome("errors")
        defer { home.remove() }
        let npub = try await CLI.createAccount(home, relay: relay.url)

        let invalid = try await CLI.run(["send", "npub1invalid", "hi", "--relay", relay.url], home: home)
        #expect(invalid.status == 4, "\(invalid)")
        #expect(invalid.stderr.lowercased().contains("invalid npub"), "\(invalid)")

        let own = try await CLI.run(["chat", "new", npub, "--relay", relay.url], home: home)
        #expect(own.status == 4, "\(own)")

        // A valid npub that never published a key package.
        let stranger = Keys.generate().publicKey.npub
        let missing = try await CLI.run(["chat", "new", stranger, "--json", "--relay", relay.url], home: home)
        #expect(missing.status == 5, "\(missing)")
        #expect(missing.stderr.lowercased().contains("key package"), "\(missing)")
        #expect(missing.stdout.isEmpty, "\(missing)")

        let chats = try await CLI.run(["chats", "--json", "--relay", relay.url], home: home)
        #expect(chats.status == 0 && chats.objects.isEmpty, "\(chats)")
        await relay.stop()
    }
}
