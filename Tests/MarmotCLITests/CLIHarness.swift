import Foundation
import Testing
import TestSupport

/// How one `marmot` invocation ended: its whole stdout and stderr, and exit status.
struct CLIResult: CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let stdout: String
    let stderr: String

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Every stdout line that is a JSON object.
    var objects: [[String: Any]] {
        lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The single JSON object the command printed.
    func object() throws -> [String: Any] {
        let objects = objects
        guard objects.count == 1, let object = objects.first else {
            throw HarnessError.unexpectedOutput("expected one JSON object from \(arguments), got: \(self)")
        }
        return object
    }

    var description: String {
        "marmot \(arguments.joined(separator: " ")) → \(status)\nstdout: \(stdout)\nstderr: \(stderr)"
    }
}

enum HarnessError: Error, CustomStringConvertible {
    case unexpectedOutput(String)
    case timedOut([String])

    var description: String {
        switch self {
        case .unexpectedOutput(let text): text
        case .timedOut(let arguments): "marmot \(arguments.joined(separator: " ")) did not finish in time"
        }
    }
}

/// A temporary `$MARMOT_HOME`, removed by `remove()`.
struct TestHome: Sendable {
    let url: URL

    init(_ name: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-cli-\(name)-\(UUID().uuidString)")
        // 0700 as `marmot` makes it (a wider one is tightened with a note on stderr: HomePermissionsTests).
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
    }

    var path: String { url.path }
    var environment: [String: String] { ["MARMOT_HOME": url.path] }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Runs the built `marmot` to completion, capturing stdout and stderr separately.
enum CLI {
    static func run(
        _ arguments: [String], home: TestHome?, environment: [String: String] = [:], stdin: String? = nil,
        timeout: Double = 120
    ) async throws -> CLIResult {
        ChildProcess.ignoreBrokenPipes  // writing stdin to a command that already exited
        var env = ProcessInfo.processInfo.environment
        env["MARMOT_RELAYS"] = nil
        env["MARMOT_LOG"] = nil
        if let home { env.merge(home.environment) { $1 } }
        env.merge(environment) { $1 }
        // `Spawned`, not Foundation's `Process` (see there); it also resets the signal mask.
        let out = try Spawned.pipe(), err = try Spawned.pipe()
        let input = try stdin == nil ? (read: Spawned.nullInput(), write: nil) : Spawned.pipe()
        let stdoutData = Collected(), stderrData = Collected()
        let process = try Spawned(
            RelayCommandTests.marmot, arguments, environment: env, stdin: input.read.fileDescriptor,
            stdout: out.write.fileDescriptor, stderr: err.write.fileDescriptor)
        for end in [out.write, err.write, input.read] { try? end.close() }
        let readers = [(out.read, stdoutData), (err.read, stderrData)].map { handle, sink in
            let thread = Thread {
                sink.set(handle.readDataToEndOfFile())
            }
            thread.start()
            return sink
        }
        if let stdin, let writer = input.write {
            try writer.write(contentsOf: Data(stdin.utf8))
            try writer.close()
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if deadline.timeIntervalSinceNow <= 0 {
                process.terminate()
                throw HarnessError.timedOut(arguments)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        for sink in readers { await sink.wait() }
        return CLIResult(
            arguments: arguments, status: process.terminationStatus,
            stdout: String(decoding: stdoutData.value ?? Data(), as: UTF8.self),
            stderr: String(decoding: stderrData.value ?? Data(), as: UTF8.self))
    }

    /// Starts a long-running `marmot` (e.g. `listen`) whose stdout lines are read as they come.
    static func start(_ arguments: [String], home: TestHome, name: String) throws -> ChildProcess {
        try ChildProcess(name, executable: RelayCommandTests.marmot, arguments: arguments, environment: home.environment)
    }

    /// `marmot account create --json` in `home`; returns the new npub.
    static func createAccount(_ home: TestHome, relay: String) async throws -> String {
        let result = try await run(["account", "create", "--json", "--relay", relay], home: home)
        #expect(result.status == 0, "\(result)")
        return try #require(try result.object()["npub"] as? String, "\(result)")
    }

    /// `inviter` opens a chat with `peer` (`chat new` on every relay of `relays`) and `peer` accepts
    /// the invitation as a user does (`invites`, then `accept`, on the first relay); returns the chat id.
    static func openAcceptedChat(_ inviter: TestHome, with peerNpub: String, peer: TestHome, relays: [String]) async throws -> String {
        let relay = try #require(relays.first)
        let opened = try await run(["chat", "new", peerNpub, "--json"] + relays.flatMap { ["--relay", $0] }, home: inviter)
        #expect(opened.status == 0, "\(opened)")
        let chatID = try #require(try opened.object()["chat"] as? String, "\(opened)")
        var inviteID: String?
        for _ in 0..<10 where inviteID == nil {
            inviteID = try await run(["invites", "--json", "--relay", relay], home: peer).objects.first?["id"] as? String
        }
        let accepted = try await run(["accept", try #require(inviteID), "--json", "--relay", relay], home: peer)
        #expect(accepted.status == 0, "\(accepted)")
        return chatID
    }
}

/// Data written once by a reader thread.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?

    func set(_ value: Data) { lock.withLock { data = value } }
    var value: Data? { lock.withLock { data } }

    func wait() async {
        while value == nil { try? await Task.sleep(for: .milliseconds(10)) }
    }
}

/// A `marmot relay --memory` subprocess for the duration of a test.
struct TestRelay {
    let process: ChildProcess
    let url: String

    static func start() async throws -> TestRelay {
        let process = try ChildProcess(
            "marmot relay", executable: RelayCommandTests.marmot, arguments: ["relay", "--port", "0", "--memory"])
        guard let url = await process.nextLine(timeout: 20), url.hasPrefix("ws://127.0.0.1:") else {
            await process.stop()
            throw InteropError.relayDidNotStart
        }
        return TestRelay(process: process, url: url)
    }

    func stop() async { await process.stop() }
}

/// The MDK 0.8.0 peer of the interop kit, initialised as "mdk" on its own rust-nostr relay: the
/// other side of one CLI interop test.
struct MDKOnRelay {
    let mdk: MDKPeer
    /// The peer's npub, as its `init` reply gave it.
    let npub: String
    /// The relay both sides use.
    let url: String
    /// The peer's secret key, as its `init` reply gave it (to publish as the peer, e.g. a profile).
    var nsec: String?

    /// Starts rust-nostr's relay and the MDK peer (`init`, then `publish_key_package` when asked),
    /// runs `body`, then stops both and removes MDK's data, whether `body` returns or throws.
    static func run(publishKeyPackage: Bool = false, _ body: (MDKOnRelay) async throws -> Void) async throws {
        try InteropKit.require()
        let (relay, url) = try await InteropKit.startRustRelay()
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("mdk-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dataDir) }
        var peer: MDKPeer?
        do {
            let mdk = try await MDKPeer("mdk")
            peer = mdk
            let initialised = try await mdk.call(["cmd": "init", "relay": url, "data_dir": dataDir.path, "name": "mdk"])
            let npub = try #require(initialised.string("npub"))
            if publishKeyPackage { try await mdk.call(["cmd": "publish_key_package"]) }
            try await body(MDKOnRelay(mdk: mdk, npub: npub, url: url, nsec: initialised.string("nsec")))
        } catch {
            await peer?.stop()
            await relay.stop()
            throw error
        }
        await peer?.stop()
        await relay.stop()
    }

    /// MDK sends `text` in `group`; returns that message as `marmot listen` in `home` prints it.
    func heardByListen(mdkSends text: String, in group: String, home: TestHome) async throws -> [String: Any] {
        _ = try await mdk.call(["cmd": "send", "group_id": group, "text": text])
        let listen = try CLI.start(["listen", "--json", "--timeout", "60", "--relay", url], home: home, name: "marmot listen")
        let heard = try await TwoHomesTests.next(listen, type: "message") { $0["text"] as? String == text }
        await listen.stop()
        return heard
    }
}
