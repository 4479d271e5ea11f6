import Foundation

/// A subprocess whose stdout lines can be awaited with a deadline; always stopped by `stop()`.
///
/// With `interactive: true` its stdin is a pipe and `send(_:)` writes lines to it (JSON-lines
/// peers); otherwise stdin is /dev/null.
public final class ChildProcess: Sendable {
    private let process: Spawned
    private let lines = Inbox<String>()
    private let input: FileHandle?
    public let name: String

    /// Starts `executable` with `arguments`; stdout is read as lines, stderr is copied to ours
    /// (diagnostics) through a pipe of our own: a child that outlives a crashed test process then
    /// holds no descriptor of `swift test`'s, which would otherwise wait for it forever.
    public init(
        _ name: String, executable: String, arguments: [String], environment: [String: String] = [:],
        interactive: Bool = false
    ) throws {
        Self.ignoreBrokenPipes
        self.name = name
        // `Spawned` gives the child a clean signal mask, so `stop()`'s SIGTERM is delivered.
        let stdout = try Spawned.pipe()
        let stderr = try Spawned.pipe()
        let stdin = try interactive ? Spawned.pipe() : (read: Spawned.nullInput(), write: nil)
        let process = try Spawned(
            executable, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            stdin: stdin.read.fileDescriptor, stdout: stdout.write.fileDescriptor, stderr: stderr.write.fileDescriptor)
        // The child's ends are the child's now: with ours closed, its exit ends our reads.
        try? stdout.write.close()
        try? stderr.write.close()
        try? stdin.read.close()
        let diagnostics = stderr.read
        Thread.detachNewThread {
            while true {
                let chunk = diagnostics.availableData
                if chunk.isEmpty { break }
                FileHandle.standardError.write(chunk)
            }
        }
        input = stdin.write
        self.process = process
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let handle = stdout.read
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

    /// A child can exit between `isRunning` and a write to its stdin; with SIGPIPE's default action
    /// that write would kill the whole test process without a word. Ignored, it is an EPIPE error.
    public static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Writes one line (a newline is appended) to the child's stdin; false when it is closed.
    @discardableResult
    public func send(_ line: String) -> Bool {
        guard let input, process.isRunning else { return false }
        do {
            try input.write(contentsOf: Data((line + "\n").utf8))
            return true
        } catch {
            return false
        }
    }

    /// The next stdout line, or nil after `timeout` seconds.
    public func nextLine(timeout: Double = 30) async -> String? { await lines.next(timeout: timeout) }

    /// The next stdout line parsed as a JSON object, skipping lines that are not.
    public func nextJSON(timeout: Double = 30) async -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let line = await nextLine(timeout: deadline.timeIntervalSinceNow) else { return nil }
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] { return object }
        }
        return nil
    }

    public var isRunning: Bool { process.isRunning }
    public var pid: Int32 { process.pid }

    /// Exit status once the process has ended (waits up to `timeout` seconds), else nil.
    public func exitStatus(timeout: Double = 30) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if deadline.timeIntervalSinceNow <= 0 { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    /// Closes stdin, then SIGTERM, then SIGKILL if it has not exited within `grace` seconds.
    public func stop(grace: Double = 5) async {
        try? input?.close()
        guard process.isRunning else { return }
        process.terminate()
        if await exitStatus(timeout: grace) == nil {
            kill(process.pid, SIGKILL)
            _ = await exitStatus(timeout: 2)
        }
    }
}

/// The Python interop kit in `shared/interop`: `run-relay.sh` (rust-nostr relay), `mdk_peer.py`
/// (MDK 0.8.0 driven by JSON lines) and the venv that runs them.
public enum InteropKit {
    /// The venv: `$MDK_VENV`, else `<package root>/.venv-interop`.
    public static var venv: URL {
        if let path = ProcessInfo.processInfo.environment["MDK_VENV"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return SharedFixtures.packageRoot.appendingPathComponent(".venv-interop")
    }

    public static var python: String { venv.appendingPathComponent("bin/python").path }
    public static var runRelay: String { SharedFixtures.interop("run-relay.sh").path }
    public static var mdkPeer: String { SharedFixtures.interop("mdk_peer.py").path }

    /// What is missing for the kit to run (empty when it can).
    public static var missing: [String] {
        var missing: [String] = []
        for path in [runRelay, mdkPeer] where !FileManager.default.fileExists(atPath: path) { missing.append(path) }
        if !FileManager.default.isExecutableFile(atPath: python) {
            missing.append(python + " (run shared/interop/setup.sh with MDK_VENV set)")
        }
        return missing
    }

    /// Whether interop tests run: when the kit is present, and always under `CI=true` (where a
    /// missing kit then fails in `require()`). Otherwise the tests are reported as skipped, with why.
    public static var shouldRun: Bool {
        let missing = missing
        if missing.isEmpty || SharedFixtures.isCI { return true }
        print("SKIP: interop kit not found: \(missing.joined(separator: ", ")); interop tests skipped")
        return false
    }

    /// Throws (CI) when the kit is missing.
    public static func require() throws {
        let missing = missing
        if !missing.isEmpty { throw FixtureError.missing(missing.joined(separator: ", ")) }
    }

    /// Starts the rust-nostr relay on a free loopback port; returns it and its URL.
    public static func startRustRelay() async throws -> (ChildProcess, String) {
        let relay = try ChildProcess("run-relay.sh", executable: "/bin/bash", arguments: [runRelay, "0"],
                                     environment: ["MDK_VENV": venv.path])
        guard let url = await relay.nextLine(timeout: 20), url.hasPrefix("ws://127.0.0.1:") else {
            await relay.stop()
            throw InteropError.relayDidNotStart
        }
        return (relay, url)
    }
}

public enum InteropError: Error, CustomStringConvertible {
    case relayDidNotStart
    case peer(String)

    public var description: String {
        switch self {
        case .relayDidNotStart: "run-relay.sh did not print its URL"
        case .peer(let why): "peer: \(why)"
        }
    }
}
