import Foundation

/// The interop kit's MDK peer (`shared/interop/mdk_peer.py`) driven over JSON lines, for the
/// benchmark's comparison with MDK 0.8.0. Replies come in command order; events are queued apart.
final class MDKBenchPeer: Sendable {
    private let process: Process
    private let input: FileHandle
    private let replies = LineQueue()
    private let events = LineQueue()

    /// Where the kit and its venv are, or why they are not usable.
    static func locate() -> Result<(python: String, peer: String, venv: String), BenchSkip> {
        BenchInteropKit.locate("mdk_peer.py").map { (python: $0.python, peer: $0.script, venv: $0.venv) }
    }

    init(python: String, script: String) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal", python, script]
        let stdout = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        try process.run()
        self.process = process
        input = stdin.fileHandleForWriting
        let replies = self.replies, events = self.events
        let (lines, sink) = AsyncStream.makeStream(of: String.self)
        Task {
            for await line in lines { await (line.hasPrefix("{\"ok\":") ? replies : events).put(line) }
        }
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let chunk = stdout.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    sink.yield(line)
                }
            }
            sink.finish()
        }
        guard try await event("ready", timeout: 20) != nil else { throw BenchSkip("mdk_peer.py did not start") }
    }

    /// Sends a command and returns its reply (ok must be true).
    func call(_ command: [String: Any], timeout: Double = 30) async throws -> [String: Any] {
        let data = try JSONSerialization.data(withJSONObject: command)
        try input.write(contentsOf: data + Data("\n".utf8))
        guard let line = await replies.next(timeout: timeout), let reply = Self.parse(line) else {
            throw BenchSkip("no reply from mdk_peer.py to \(command["cmd"] ?? "?")")
        }
        guard reply["ok"] as? Bool == true else { throw BenchSkip("mdk_peer.py: \(line)") }
        return reply
    }

    /// The next event called `name` (others are skipped), or nil after `timeout` seconds.
    func event(_ name: String, timeout: Double = 20) async throws -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let line = await events.next(timeout: deadline.timeIntervalSinceNow) else { return nil }
            if let object = Self.parse(line), object["event"] as? String == name { return object }
        }
        return nil
    }

    func stop() {
        try? input.write(contentsOf: Data("{\"cmd\":\"quit\"}\n".utf8))
        try? input.close()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
    }

    static func parse(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// Lines handed from a reader thread to async waiters, with a deadline.
actor LineQueue {
    private var lines: [String] = []
    private var waiter: (id: Int, continuation: CheckedContinuation<String?, Never>)?
    private var nextID = 0

    func put(_ line: String) {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: line)
        } else {
            lines.append(line)
        }
    }

    func next(timeout: Double) async -> String? {
        if !lines.isEmpty { return lines.removeFirst() }
        nextID += 1
        let id = nextID
        return await withCheckedContinuation { continuation in
            waiter = (id, continuation)
            Task {
                try? await Task.sleep(for: .seconds(max(0, timeout)))
                self.expire(id)
            }
        }
    }

    private func expire(_ id: Int) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: nil)
    }
}
