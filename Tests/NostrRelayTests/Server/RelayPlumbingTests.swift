import Foundation
import Logging
@testable import NostrRelay
import TestSupport
import Testing

/// Server plumbing: binding errors, `run()`/`stop()`, the bounded outbound queue.
@Suite(.timeLimit(.minutes(3))) struct RelayPlumbingTests {
    @Test func portInUseIsAnErrorNotACrash() async throws {
        let first = RelayServer(logger: testLogger("relay"))
        let port = try await first.start()
        let second = RelayServer(configuration: RelayConfiguration(port: port), logger: testLogger("relay"))
        await #expect(throws: RelayServerError.self) { try await second.start() }
        #expect(await second.port == nil)
        await first.stop()
    }

    @Test func runReturnsAfterStop() async throws {
        let server = RelayServer(logger: testLogger("relay"))
        let running = Task { try await server.run() }
        _ = try await withTimeout(30, "bind") {
            while await server.port == nil { try await Task.sleep(for: .milliseconds(10)) }
            return true
        }
        #expect(await server.url?.hasPrefix("ws://127.0.0.1:") == true)
        await server.stop()
        try await withTimeout(30, "run() returns") { try await running.value }
    }

    @Test func outboundQueueClosesWhenFull() async {
        let queue = OutboundQueue(capacity: 2, logger: testLogger("queue"))
        #expect(queue.send("a") && queue.send("b"))
        #expect(!queue.send("c"), "a reader that does not keep up is cut off")
        #expect(!queue.send("d"))
        var drained: [String] = []
        for await text in queue.stream { drained.append(text) }
        #expect(drained == ["a", "b"])
    }
}
