import Foundation
import Nostr
import Testing
import TestSupport

/// `marmot account …` and `--help`, as subprocesses against a `marmot relay`.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct AccountCommandTests {
    @Test func helpListsEveryCommandWithAnAbstract() async throws {
        let help = try await CLI.run(["--help"], home: nil)
        #expect(help.status == 0, "\(help)")
        for command in ["demo", "account", "chats", "chat", "send", "listen", "invites", "accept", "decline", "relay"] {
            #expect(help.stdout.contains("  \(command) "), "--help lacks \(command): \(help.stdout)")
        }
        #expect(help.stdout.contains("Exit codes"))
        let flat = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("9 no pending invitation with that id"), "\(help.stdout)")
        for command in [["account", "create"], ["account", "import"], ["send"], ["listen"], ["chat", "new"], ["demo"],
                        ["invites"], ["accept"], ["decline"]] {
            let sub = try await CLI.run(command + ["--help"], home: nil)
            #expect(sub.status == 0 && sub.stdout.contains("Examples:"), "\(sub)")
        }
    }

    @Test func createShowExportAndRefuseASecondAccount() async throws {
        let relay = try await TestRelay.start()
        let home = try TestHome("account")
        defer { home.remove() }

        let created = try await CLI.run(["account", "create", "--json", "--relay", relay.url], home: home)
        #expect(created.status == 0, "\(created)")
        let account = try created.object()
        let npub = try #require(account["npub"] as? String)
        let pubkey = try #require(account["pubkey"] as? String)
        #expect(try PublicKey(npub: npub).hex == pubkey)
        #expect(account["relays"] as? [String] == [relay.url])
        #expect(!created.stdout.contains("nsec1") && !created.stderr.contains("nsec1"), "the nsec leaked: \(created)")

        let nsecFile = home.url.appendingPathComponent("nsec").path
        let mode = try FileManager.default.attributesOfItem(atPath: nsecFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let shown = try await CLI.run(["account", "show", "--json"], home: home)
        #expect(shown.status == 0, "\(shown)")
        #expect(try shown.object()["npub"] as? String == npub)
        #expect(try shown.object()["embeddedRelay"] as? Bool == true)
        let text = try await CLI.run(["account", "show", "--relay", relay.url], home: home)
        #expect(text.stdout.contains(npub) && text.stdout.contains(relay.url), "\(text)")

        let exported = try await CLI.run(["account", "export", "--json"], home: home)
        #expect(exported.status == 0, "\(exported)")
        let nsec = try #require(try exported.object()["nsec"] as? String)
        #expect(try Keys(importing: nsec).publicKey.npub == npub)
        #expect(exported.stderr.contains("warning"), "\(exported)")

        let again = try await CLI.run(["account", "create", "--relay", relay.url], home: home)
        #expect(again.status == 8, "\(again)")
        #expect(again.stderr.split(separator: "\n").count == 1, "\(again)")
        await relay.stop()
    }

    @Test func importReadsTheNsecFromStdin() async throws {
        let relay = try await TestRelay.start()
        let home = try TestHome("import")
        defer { home.remove() }
        let keys = Keys.generate()

        let imported = try await CLI.run(
            ["account", "import", "--json", "--relay", relay.url], home: home, stdin: keys.secretKey.nsecEncoded() + "\n")
        #expect(imported.status == 0, "\(imported)")
        #expect(try imported.object()["npub"] as? String == keys.publicKey.npub)
        #expect(!imported.stdout.contains("nsec1") && !imported.stderr.contains("nsec1"))

        // The stored key restores the same account.
        let shown = try await CLI.run(["account", "show", "--json"], home: home)
        #expect(try shown.object()["pubkey"] as? String == keys.publicKey.hex)
        await relay.stop()
    }

    @Test func importRejectsAnInvalidNsecAndKeepsNothing() async throws {
        let home = try TestHome("bad-import")
        defer { home.remove() }
        let result = try await CLI.run(["account", "import", "--nsec-stdin"], home: home, stdin: "nsec1notakey\n")
        #expect(result.status == 4, "\(result)")
        #expect(result.stderr.lowercased().contains("invalid nsec"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: home.url.appendingPathComponent("nsec").path))
        #expect(!result.stderr.contains("nsec1notakey"), "the input was echoed: \(result)")
    }
}
