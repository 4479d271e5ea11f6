import Foundation
import Nostr
import NostrClient
import NostrRelay
import TestSupport

/// Helpers shared by the client tests that run against an embedded relay on loopback.
enum ClientTestSupport {
    /// A client configuration with short delays so reconnect tests stay quick.
    static func quickConfiguration(publishTimeout: Duration = .seconds(10)) -> RelayClientConfiguration {
        var configuration = RelayClientConfiguration()
        configuration.backoff = Backoff(initial: .milliseconds(200), maximum: .seconds(1))
        configuration.publishTimeout = publishTimeout
        configuration.connectTimeout = .seconds(10)
        return configuration
    }

    static func relay(_ configuration: RelayConfiguration = RelayConfiguration()) -> RelayServer {
        RelayServer(configuration: configuration, logger: testLogger("relay"))
    }

    static func client(_ url: String, _ configuration: RelayClientConfiguration = quickConfiguration()) -> RelayClient {
        RelayClient(url: url, configuration: configuration, logger: testLogger("client"))
    }

    /// Waits until `client` reports a status satisfying `predicate`.
    static func waitFor(_ client: RelayClient, timeout: Double = 30, _ what: String = "status",
                        _ predicate: @escaping @Sendable (RelayConnectionStatus) -> Bool) async throws {
        _ = try await withTimeout(timeout, what) {
            for await status in await client.statusUpdates() where predicate(status) { return true }
            return false
        }
    }

    static func connected(_ url: String, _ configuration: RelayClientConfiguration = quickConfiguration()) async throws -> RelayClient {
        let client = client(url, configuration)
        await client.connect()
        try await waitFor(client, "connect") { $0 == .connected }
        return client
    }

    /// Feeds a subscription's messages into an inbox the test can wait on.
    static func inbox<S: AsyncSequence & Sendable>(_ sequence: S) -> (Inbox<S.Element>, Task<Void, Never>) where S.Element: Sendable {
        let inbox = Inbox<S.Element>()
        let task = Task {
            do {
                for try await item in sequence { await inbox.put(item) }
            } catch {}
        }
        return (inbox, task)
    }

    /// A pool on `relays` whose status changes are collected into an inbox from before it connects;
    /// the caller connects it and cancels the returned pump when done.
    static func watchedPool(
        _ relays: [String], configuration: RelayClientConfiguration = quickConfiguration()
    ) async -> (pool: RelayPool, changes: Inbox<RelayStatusChange>, pump: Task<Void, Never>) {
        let pool = RelayPool(relays: relays, configuration: configuration, logger: testLogger("pool"))
        let (changes, pump) = inbox(await pool.statusUpdates())
        return (pool, changes, pump)
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    static func temporaryDatabasePath() -> String {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("relay-client-tests-\(UUID().uuidString)")
            .appendingPathComponent("relay.sqlite").path
    }

    /// A loopback URL where nothing listens (`LoopbackDeadEnds.refusedURL`).
    static func deadURL() async throws -> String { try LoopbackDeadEnds.refusedURL() }

    /// A loopback URL that accepts TCP and never upgrades (`LoopbackDeadEnds.blackHoleURL`).
    static func blackHoleURL() async throws -> String { try LoopbackDeadEnds.blackHoleURL() }
}
