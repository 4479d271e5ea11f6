import Foundation
import Logging
import Nostr
import NostrClient
import NostrRelay

/// Relay throughput on loopback: events/s from publish to delivery at a live subscriber, through the
/// embedded relay and through rust-nostr's relay (`run-relay.sh`, when the interop venv exists).
enum RelayBench {
    static let eventCount = 2000
    static let sequentialCount = 200
    static let inFlight = 64
    /// Tag value unique to this run, so the rust-nostr relay's earlier contents never count.
    static let runTag = "bench-\(UInt32.random(in: 0...UInt32.max))"

    static func run() async {
        Bench.section("Relay (loopback, \(eventCount) events of kind 1)")
        var logger = Logger(label: "bench")
        logger.logLevel = .warning
        let events: [Event]
        do {
            events = try makeEvents(logger: logger)
        } catch {
            print("relay bench skipped: cannot sign events: \(error)")
            return
        }

        let server = RelayServer(configuration: .benchmark, logger: logger)
        do {
            let port = try await server.start()
            await measure("embedded relay", url: "ws://127.0.0.1:\(port)", events: events, logger: logger)
        } catch {
            print("embedded relay: skipped: \(error)")
        }
        await server.stop()

        switch RustRelay.start() {
        case .failure(let reason):
            print("rust-nostr relay: skipped: \(reason)")
        case .success(let relay):
            await measure("rust-nostr relay", url: relay.url, events: events, logger: logger)
            relay.stop()
        }
    }

    static func makeEvents(logger: Logger) throws -> [Event] {
        let keys = Keys.generate()
        let now = UnsignedEvent.now()
        return try (0..<(eventCount + sequentialCount)).map { i in
            try UnsignedEvent(pubkey: keys.publicKey, createdAt: now, kind: .textNote,
                              tags: [Tag(["t", runTag])], content: "bench event \(i)").signed(with: keys)
        }
    }

    /// Publishes every event (at most `inFlight` awaiting OK) while a second client subscribes, and
    /// reports the rate at which they reach the subscriber; then one-at-a-time publishes (OK round trips).
    static func measure(_ name: String, url: String, events: [Event], logger: Logger) async {
        let subscriber = RelayClient(url: url, logger: logger)
        let publisher = RelayClient(url: url, logger: logger)
        await subscriber.connect()
        await publisher.connect()
        guard await waitConnected(subscriber), await waitConnected(publisher) else {
            print("\(name): skipped: could not connect to \(url)")
            await subscriber.disconnect()
            await publisher.disconnect()
            return
        }
        let (bulk, sequential) = (Array(events.dropLast(sequentialCount)), Array(events.suffix(sequentialCount)))
        let subscription = await subscriber.subscribe([Filter(kinds: [.textNote], tags: ["t": [runTag]], limit: 0)])
        let wanted = Set(bulk.map(\.id))
        let (ready, readySignal) = AsyncStream.makeStream(of: Void.self)
        let receiver = Task { () -> Int in
            var got = 0
            for await message in subscription {
                switch message {
                case .endOfStoredEvents: readySignal.yield()
                case .event(let event) where wanted.contains(event.id): got += 1
                default: break
                }
                if got == wanted.count { break }
            }
            return got
        }
        for await _ in ready { break }  // the REQ is live on the relay

        let start = Bench.now()
        var accepted = 0
        await withTaskGroup(of: Bool.self) { group in
            var next = 0
            func launch() {
                let event = bulk[next]
                group.addTask { await publisher.publish(event).isAccepted }
                next += 1
            }
            while next < min(inFlight, bulk.count) { launch() }
            for await ok in group {
                if ok { accepted += 1 }
                if next < bulk.count { launch() }
            }
        }
        let published = Bench.now()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(30))
            receiver.cancel()
        }
        let received = await receiver.value
        watchdog.cancel()
        let delivered = Bench.now()
        report("\(name): publish, \(inFlight) awaiting OK", count: accepted, nanos: published - start)
        report("\(name): publish → live delivery", count: received, nanos: delivered - start)
        if received < bulk.count { print("  (\(bulk.count - received) events not delivered within 30 s)") }

        let sequentialStart = Bench.now()
        var sequentialAccepted = 0
        for event in sequential where await publisher.publish(event).isAccepted { sequentialAccepted += 1 }
        report("\(name): publish one at a time (OK round trip)", count: sequentialAccepted, nanos: Bench.now() - sequentialStart)
        await subscriber.disconnect()
        await publisher.disconnect()
    }

    static func report(_ name: String, count: Int, nanos: UInt64) {
        let seconds = Double(nanos) / 1e9
        let rate = seconds > 0 ? Double(count) / seconds : 0
        let label = name.padding(toLength: max(name.count, 48), withPad: " ", startingAt: 0)
        print("\(label) \(String(format: "%.0f", rate)) events/s  (\(count) events, \(String(format: "%.0f", seconds * 1000)) ms)")
    }

    static func waitConnected(_ client: RelayClient) async -> Bool {
        for _ in 0..<500 {
            if await client.status == .connected { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}

/// rust-nostr's relay started through the interop kit's `run-relay.sh` (loopback, free port).
final class RustRelay: Sendable {
    let url: String
    private let process: Process

    private init(url: String, process: Process) {
        self.url = url
        self.process = process
    }

    /// Starts the relay, or says why it cannot (kit or venv missing, no URL within 20 s).
    static func start() -> Result<RustRelay, BenchSkip> {
        let script: String, venv: String
        switch BenchInteropKit.locate("run-relay.sh") {
        case .success(let kit): (script, venv) = (kit.script, kit.venv)
        case .failure(let skip): return .failure(skip)
        }
        let process = Process()
        // `env --default-signal` clears the signal mask inherited from Swift's threads, so SIGTERM works.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal", "/bin/bash", script, "0"]
        process.environment = ProcessInfo.processInfo.environment.merging(["MDK_VENV": venv]) { $1 }
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return .failure(BenchSkip("cannot start run-relay.sh: \(error)")) }
        let line = LineBox()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var buffer = Data()
            while !buffer.contains(UInt8(ascii: "\n")) {
                let chunk = stdout.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
            }
            line.set(String(decoding: buffer.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self))
            done.signal()
        }
        guard done.wait(timeout: .now() + 20) == .success, let url = line.get(), url.hasPrefix("ws://127.0.0.1:") else {
            process.terminate()
            return .failure(BenchSkip("run-relay.sh printed no URL within 20 s"))
        }
        return .success(RustRelay(url: url, process: process))
    }

    /// SIGTERM, then SIGKILL after 5 s.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// Why a benchmark was skipped.
struct BenchSkip: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A string handed from the reader thread to the waiting one.
private final class LineBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String?
    func set(_ text: String) { lock.lock(); value = text; lock.unlock() }
    func get() -> String? { lock.lock(); defer { lock.unlock() }; return value }
}

extension RelayConfiguration {
    /// The embedded relay without its abuse limits (event rates, storage quota), so a benchmark
    /// measures the relay and the client, not the throttle.
    static var benchmark: RelayConfiguration {
        var configuration = RelayConfiguration()
        configuration.connectionEventRate = nil
        configuration.globalEventRate = nil
        configuration.maxStoredBytes = nil
        return configuration
    }
}
