import Foundation
import TestSupport

/// A subprocess whose stdout lines can be awaited with a deadline; always stopped by `stop()`.
final class ChildProcess: Sendable {
    private let process: Process
    private let lines = Inbox<String>()
    let name: String

    /// Starts `executable` with `arguments`; stderr goes to ours (diagnostics), stdout is read as lines.
    init(_ name: String, executable: String, arguments: [String], environment: [String: String] = [:]) throws {
        self.name = name
        let process = Process()
        #if os(Linux)
        // Children inherit the signal mask of the spawning thread, where Swift's runtime blocks
        // SIGTERM; `env --default-signal` resets it so `stop()`'s SIGTERM is actually delivered.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal", executable] + arguments
        #else
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        #endif
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardInput = FileHandle.nullDevice
        self.process = process
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let handle = stdout.fileHandleForReading
        try process.run()
        // Blocking reads on their own thread; lines go through an ordered stream into the inbox.
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            if !buffer.isEmpty { continuation.yield(String(decoding: buffer, as: UTF8.self)) }
            continuation.finish()
        }
        let lines = self.lines
        Task {
            for await line in stream { await lines.put(line) }
        }
    }

    /// The next stdout line, or nil after `timeout` seconds.
    func nextLine(timeout: Double = 10) async -> String? { await lines.next(timeout: timeout) }

    /// The next stdout line parsed as a JSON object, skipping lines that are not.
    func nextJSON(timeout: Double = 10) async -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let line = await nextLine(timeout: deadline.timeIntervalSinceNow) else { return nil }
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] { return object }
        }
        return nil
    }

    var isRunning: Bool { process.isRunning }
    var pid: Int32 { process.processIdentifier }

    /// Exit status once the process has ended (waits up to `timeout` seconds), else nil.
    func exitStatus(timeout: Double = 10) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if deadline.timeIntervalSinceNow <= 0 { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    /// SIGTERM, then SIGKILL if it has not exited within `grace` seconds.
    func stop(grace: Double = 5) async {
        guard process.isRunning else { return }
        process.terminate()
        if await exitStatus(timeout: grace) == nil {
            kill(process.processIdentifier, SIGKILL)
            _ = await exitStatus(timeout: 2)
        }
    }
}

/// The Python interop kit: `run-relay.sh` (rust-nostr relay) and the nostr-sdk venv.
enum InteropKit {
    /// The venv: `$MDK_VENV`, else `<package root>/.venv-interop`.
    static var venv: URL {
        if let path = ProcessInfo.processInfo.environment["MDK_VENV"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return SharedFixtures.packageRoot.appendingPathComponent(".venv-interop")
    }

    static var python: String { venv.appendingPathComponent("bin/python").path }
    static var runRelay: String { SharedFixtures.interop("run-relay.sh").path }
    static var peerScript: String {
        SharedFixtures.packageRoot.appendingPathComponent("Tests/NostrClientTests/Fixtures/nostr_sdk_peer.py").path
    }

    /// What is missing for the kit to run (empty when it can).
    static var missing: [String] {
        var missing: [String] = []
        if !FileManager.default.fileExists(atPath: runRelay) { missing.append(runRelay) }
        if !FileManager.default.isExecutableFile(atPath: python) { missing.append(python + " (run scripts/setup.sh --interop)") }
        return missing
    }

    /// Whether interop tests run: when the kit is present, and always under `CI=true` (where a
    /// missing kit then fails in `require()`). Otherwise the tests are reported as skipped, with why.
    static var shouldRun: Bool {
        let missing = missing
        if missing.isEmpty || SharedFixtures.isCI { return true }
        print("SKIP: interop kit not found: \(missing.joined(separator: ", ")); interop tests skipped")
        return false
    }

    /// Throws (CI) when the kit is missing.
    static func require() throws {
        let missing = missing
        if !missing.isEmpty { throw FixtureError.missing(missing.joined(separator: ", ")) }
    }

    /// Starts the rust-nostr relay on a free loopback port; returns it and its URL.
    static func startRustRelay() async throws -> (ChildProcess, String) {
        let relay = try ChildProcess("run-relay.sh", executable: "/bin/bash", arguments: [runRelay, "0"],
                                     environment: ["MDK_VENV": venv.path])
        guard let url = await relay.nextLine(timeout: 20), url.hasPrefix("ws://127.0.0.1:") else {
            await relay.stop()
            throw InteropError.relayDidNotStart
        }
        return (relay, url)
    }

    /// Starts the nostr-sdk peer script with `arguments`.
    static func peer(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess("nostr_sdk_peer.py", executable: python, arguments: [peerScript] + arguments)
    }
}

enum InteropError: Error {
    case relayDidNotStart
}
