import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Nostr
import Testing
import TestSupport

/// Two homes on our own relay with NIP-42 (`marmot relay --auth inbox|all`, issue 44), only
/// through the CLI, as `AuthRelayCommandTests` does on rust-nostr's: a self-hosted inbox relay
/// delivers the Welcome to its recipient alone, and a relay that wants AUTH for everything works.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct OwnAuthRelayCommandTests {
    /// `marmot relay --port 0 --memory` with `arguments`; returns the process and its URL.
    static func startRelay(_ arguments: [String]) async throws -> (ChildProcess, String) {
        let process = try ChildProcess(
            "marmot relay", executable: RelayCommandTests.marmot, arguments: ["relay", "--port", "0", "--memory"] + arguments)
        guard let url = await process.nextLine(timeout: 20), url.hasPrefix("ws://127.0.0.1:") else {
            await process.stop()
            throw InteropError.relayDidNotStart
        }
        return (process, url)
    }

    @Test func inviteReachesTheInviteeOnOurInboxRelay() async throws {
        let (relay, url) = try await Self.startRelay(["--auth", "inbox"])
        do {
            try await AuthRelayCommandTests.chatBothWays(on: url, names: ("alice-own-inbox", "bob-own-inbox"))
        } catch {
            await relay.stop()
            throw error
        }
        await relay.stop()
    }

    @Test func everythingWorksOnOurRelayWantingAuthForReadsAndWrites() async throws {
        let (relay, url) = try await Self.startRelay(["--auth", "all"])
        do {
            try await AuthRelayCommandTests.chatBothWays(on: url, names: ("alice-own-all", "bob-own-all"))
        } catch {
            await relay.stop()
            throw error
        }
        await relay.stop()
    }

    @Test func helpAndBadFlagsAreExplained() async throws {
        let helpHome = try TestHome("relay-help")
        defer { helpHome.remove() }
        let help = try await CLI.run(["relay", "--help"], home: helpHome)
        #expect(help.stdout.contains("--auth") && help.stdout.contains("--allow-pubkey"), "\(help)")
        let home = try TestHome("relay-bad-flags")
        defer { home.remove() }
        let noMode = try await CLI.run(["relay", "--memory", "--port", "0", "--allow-pubkey", String(repeating: "ab", count: 32)], home: home)
        #expect(noMode.status != 0 && noMode.stderr.contains("--allow-pubkey needs --auth all"), "\(noMode)")
        let badKey = try await CLI.run(["relay", "--memory", "--port", "0", "--auth", "all", "--allow-pubkey", "nope"], home: home)
        #expect(badKey.status != 0 && badKey.stderr.contains("--allow-pubkey nope"), "\(badKey)")
        let badMode = try await CLI.run(["relay", "--memory", "--port", "0", "--auth", "some"], home: home)
        #expect(badMode.status != 0, "\(badMode)")
    }

    /// `--allow-pubkey` takes an npub or hex, and the NIP-11 document says AUTH is required and
    /// writes are restricted.
    @Test func allowedPubkeysAndTheInformationDocument() async throws {
        let writer = Keys.generate()
        let (relay, url) = try await Self.startRelay(
            ["--auth", "all", "--allow-pubkey", writer.publicKey.npub, "--allow-pubkey", Keys.generate().publicKey.hex])
        defer { Task { await relay.stop() } }
        var request = URLRequest(url: try #require(URL(string: "http" + url.dropFirst(2))))
        request.setValue("application/nostr+json", forHTTPHeaderField: "Accept")
        let (data, _) = try await URLSession.shared.data(for: request)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect((object["supported_nips"] as? [Int])?.contains(42) == true, "\(object)")
        let limitation = try #require(object["limitation"] as? [String: Any])
        #expect(limitation["auth_required"] as? Bool == true && limitation["restricted_writes"] as? Bool == true, "\(limitation)")
        await relay.stop()
    }
}
