import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Nostr
import NostrClient
import Testing
import TestSupport

/// `marmot relay`: the embedded relay as a foreground command, driven as a subprocess.
struct RelayCommandTests {
    /// The built `marmot` executable, next to the test bundle (same build folder).
    static var marmot: String {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = bundleDirectory.appendingPathComponent("marmot").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return SharedFixtures.packageRoot.appendingPathComponent(".build/debug/marmot").path
    }

    static func startRelay(database: String) async throws -> (ChildProcess, String) {
        let relay = try ChildProcess(
            "marmot relay", executable: marmot, arguments: ["relay", "--port", "0", "--database", database])
        guard let url = await relay.nextLine(timeout: 20), url.hasPrefix("ws://127.0.0.1:") else {
            await relay.stop()
            throw InteropError.relayDidNotStart
        }
        return (relay, url)
    }

    @Test func relayCommandServesStoresAndStopsOnSIGTERM() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("relay.sqlite").path

        let keys = Keys.generate()
        let note = try UnsignedEvent(pubkey: keys.publicKey, kind: .textNote, content: "stored by marmot relay")
            .signed(with: keys)

        let (first, url) = try await Self.startRelay(database: database)
        // Generous timeouts: the relay is a child process, slow to answer at a full run's busy start.
        var generous = RelayClientConfiguration()
        generous.connectTimeout = .seconds(30)
        generous.publishTimeout = .seconds(30)
        let publisher = RelayClient(url: url, configuration: generous)
        await publisher.connect()
        let result = await publisher.publish(note)
        await publisher.disconnect()
        #expect(result.isAccepted)
        await first.stop()
        #expect(await first.exitStatus(timeout: 20) == 0)

        // A restart on the same file still has the event.
        let (second, url2) = try await Self.startRelay(database: database)
        defer { Task { await second.stop() } }
        let reader = RelayClient(url: url2)
        await reader.connect()
        var received: [EventID] = []
        let subscription = await reader.subscribe([Filter(authors: [keys.publicKey])])
        for await message in subscription {
            if case .event(let event) = message { received.append(event.id) }
            if case .endOfStoredEvents = message { break }
        }
        await reader.disconnect()
        #expect(received == [note.id])
        await second.stop()
        #expect(await second.exitStatus(timeout: 20) == 0)
    }

    /// The abuse limits are flags, checked (exit code 2) and stated in the NIP-11 `limitation`.
    @Test func limitFlagsAreCheckedAndAdvertised() async throws {
        for bad in [["--allow-origin", "ftp://example.com"], ["--allow-origin", "http://example.com/path"],
                    ["--quota-mb", "-1"], ["--max-connections", "0"], ["--event-rate", "-5"]] {
            let result = try await CLI.run(["relay", "--port", "0", "--memory"] + bad, home: nil, timeout: 30)
            #expect(result.status == 2, "\(result)")
        }
        let relay = try ChildProcess(
            "marmot relay", executable: Self.marmot,
            arguments: ["relay", "--port", "0", "--memory", "--quota-mb", "5", "--max-connections", "7",
                        "--event-rate", "3", "--relay-event-rate", "0", "--allow-origin", "http://localhost:8000"])
        let url = try #require(await relay.nextLine(timeout: 20))
        let port = try #require(URLComponents(string: url)?.port)
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/")))
        request.setValue("application/nostr+json", forHTTPHeaderField: "Accept")
        let (data, _) = try await URLSession.shared.data(for: request)
        await relay.stop()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let limitation = try #require(object["limitation"] as? [String: Any])
        #expect(limitation["max_message_length"] as? Int == 1 << 20)
        #expect(limitation["max_stored_bytes"] as? Int == 5 << 20)
        #expect(limitation["max_connections"] as? Int == 7)
        #expect(limitation["max_events_per_second"] as? Double == 3)
        #expect(limitation["max_relay_events_per_second"] == nil)
    }

    /// Blossom on the relay's port: the second stdout line names it, `--max-blob` and `--blob-quota`
    /// bound uploads, blobs are files in `blobs/` beside the database, `--no-blossom` turns it off.
    @Test func blossomFlagsBoundUploadsAndNoBlossomTurnsItOff() async throws {
        for bad in [["--max-blob", "0"], ["--blob-quota", "-1"]] {
            let result = try await CLI.run(["relay", "--port", "0", "--memory"] + bad, home: nil, timeout: 30)
            #expect(result.status == 2, "\(result)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("relay.sqlite").path
        let relay = try ChildProcess(
            "marmot relay", executable: Self.marmot,
            arguments: ["relay", "--port", "0", "--database", database, "--max-blob", "1000", "--blob-quota", "1500"])
        let url = try #require(await relay.nextLine(timeout: 20))
        let line = try #require(await relay.nextLine(timeout: 20))
        let port = try #require(URLComponents(string: url)?.port)
        #expect(line == "blossom http://127.0.0.1:\(port)")
        let server = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let client = BlossomClient(timeout: 20)
        let keys = Keys.generate()
        let now = Int64(Date().timeIntervalSince1970)
        let small = Data(repeating: 1, count: 900)
        let descriptor = try await client.upload(small, type: "image/png", to: server, keys: keys, now: now)
        #expect(try await client.download(descriptor.url, expectedSHA256: descriptor.sha256, maxBytes: 1000) == small)
        let file = folder.appendingPathComponent("blobs").appendingPathComponent(Hex.encode(descriptor.sha256))
        #expect(FileManager.default.fileExists(atPath: file.path))
        do {
            _ = try await client.upload(Data(repeating: 2, count: 1001), type: "image/png", to: server, keys: keys, now: now)
            Issue.record("a blob over --max-blob was accepted")
        } catch {
            #expect(error as? BlossomError == .tooLarge, "\(error)")
        }
        do {
            _ = try await client.upload(Data(repeating: 3, count: 900), type: "image/png", to: server, keys: keys, now: now)
            Issue.record("a blob over --blob-quota was accepted")
        } catch {
            guard case .refused(status: 507, _)? = error as? BlossomError else { Issue.record("expected 507, got \(error)"); return }
        }
        await relay.stop()

        let plain = try ChildProcess(
            "marmot relay", executable: Self.marmot, arguments: ["relay", "--port", "0", "--memory", "--no-blossom"])
        let plainURL = try #require(await plain.nextLine(timeout: 20))
        let plainPort = try #require(URLComponents(string: plainURL)?.port)
        #expect(await plain.nextLine(timeout: 2) == nil)
        do {
            _ = try await client.upload(small, type: "image/png", to: try #require(URL(string: "http://127.0.0.1:\(plainPort)")),
                                        keys: keys, now: now)
            Issue.record("--no-blossom still took an upload")
        } catch {
            guard case .refused(status: 404, _)? = error as? BlossomError else { Issue.record("expected 404, got \(error)"); return }
        }
        await plain.stop()
    }
}
