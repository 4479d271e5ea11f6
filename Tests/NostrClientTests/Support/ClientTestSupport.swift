import Foundation
#if canImport(Glibc)
import Glibc
#endif
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

    /// A loopback URL where nothing listens, and nothing will for the rest of the run.
    ///
    /// The port is held by a socket that is bound but never listens (and leaves `SO_REUSEADDR`
    /// unset, so no server can bind it beside), kept open until the process ends: a connection
    /// to it is refused at once. A port bound and released instead could be taken at once by
    /// another test's relay in a parallel run, and the "dead" relay would then answer.
    static func deadURL() async throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw DeadPortError.socket(errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw DeadPortError.bind(errno)
        }
        return "ws://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
    }

    enum DeadPortError: Error {
        case socket(Int32)
        case bind(Int32)
    }
}
