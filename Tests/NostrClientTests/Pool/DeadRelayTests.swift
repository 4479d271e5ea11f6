import Foundation
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing

/// A dead relay beside a live one never holds the pool up (issue 50), over real sockets: a refused
/// port, a host that accepts TCP and never upgrades, a relay that upgrades and never answers, and
/// one that drops the connection after the upgrade. The pool has no timeout of its own, so a
/// `caughtUp` at all (the test waits far longer than any bound) shows the dead relay was let go.
@Suite(.timeLimit(.minutes(3))) struct DeadRelayTests {
    enum Dead: String, CaseIterable, Sendable {
        case refused, blackHole, mute, dropsAfterUpgrade
    }

    /// The dead relay's URL, and the server behind it to stop (nil for the sockets).
    static func start(_ dead: Dead) async throws -> (url: String, server: RelayServer?) {
        switch dead {
        case .refused: return (try await ClientTestSupport.deadURL(), nil)
        case .blackHole: return (try await ClientTestSupport.blackHoleURL(), nil)
        case .mute:
            var configuration = RelayConfiguration()
            configuration.faults.answerDelay = .seconds(3600)
            let server = ClientTestSupport.relay(configuration)
            return ("ws://127.0.0.1:\(try await server.start())", server)
        case .dropsAfterUpgrade:
            var configuration = RelayConfiguration()
            configuration.faults.closeOnREQ = { _, _ in true }
            configuration.faults.withholdOK = { _ in true }
            let server = ClientTestSupport.relay(configuration)
            return ("ws://127.0.0.1:\(try await server.start())", server)
        }
    }

    @Test(arguments: Dead.allCases) func theCatchUpEndsWithTheLiveRelaysEvents(_ dead: Dead) async throws {
        let live = ClientTestSupport.relay()
        let liveURL = "ws://127.0.0.1:\(try await live.start())"
        let (deadURL, deadServer) = try await Self.start(dead)
        let stored = try TestEvents.make(content: "stored", createdAt: ClientTestSupport.now - 5)
        let writer = try await ClientTestSupport.connected(liveURL)
        #expect(await writer.publish(stored).isAccepted)
        await writer.disconnect()

        let pool = RelayPool(relays: [liveURL, deadURL], configuration: ClientTestSupport.quickConfiguration(),
                             logger: testLogger("pool"))
        await pool.connect()
        let (inbox, pump) = ClientTestSupport.inbox(await pool.subscribe([Filter(kinds: [.textNote])]))
        defer { pump.cancel() }
        var events: [EventID] = []
        var caughtUp = false
        while let message = await inbox.next(timeout: 120) {
            if case .event(let event, _) = message { events.append(event.id) }
            if message == .caughtUp {
                caughtUp = true
                break
            }
        }
        #expect(caughtUp, "\(dead): the pool waited for the dead relay")
        #expect(events == [stored.id])
        await pool.disconnect()
        await deadServer?.stop()
        await live.stop()
    }

    @Test(arguments: Dead.allCases) func aPublishReturnsAtTheLiveRelaysAcceptance(_ dead: Dead) async throws {
        let live = ClientTestSupport.relay()
        let liveURL = "ws://127.0.0.1:\(try await live.start())"
        let (deadURL, deadServer) = try await Self.start(dead)
        // A publish timeout longer than the test's limit: a publish waiting for the dead relay hangs.
        let pool = RelayPool(relays: [liveURL, deadURL],
                             configuration: ClientTestSupport.quickConfiguration(publishTimeout: .seconds(600)),
                             logger: testLogger("pool"))
        let (changes, pump) = ClientTestSupport.inbox(await pool.statusUpdates())
        defer { pump.cancel() }
        await pool.connect()
        while let change = await changes.next(timeout: 60), !(change.relay == liveURL && change.status == .connected) {}
        let event = try TestEvents.make(createdAt: ClientTestSupport.now)
        let result = await pool.publish(event)
        #expect(result.isSent)
        #expect(result.accepted == [liveURL])
        #expect(result.pending == [deadURL])
        #expect(try await live.storedEventCount() == 1)
        await pool.disconnect()
        await deadServer?.stop()
        await live.stop()
    }

    /// A publish for someone (a Welcome for its invitee's inbox relay) waits for that relay's
    /// acceptance, not the first of any: the slow inbox relay is in the result, the other pending
    /// or accepted.
    @Test func aPublishForSomeRelaysWaitsForOneOfThem() async throws {
        let fast = ClientTestSupport.relay()
        var slow = RelayConfiguration()
        slow.faults.answerDelay = .milliseconds(500)
        let inbox = ClientTestSupport.relay(slow)
        let fastURL = "ws://127.0.0.1:\(try await fast.start())", inboxURL = "ws://127.0.0.1:\(try await inbox.start())"
        let pool = RelayPool(relays: [fastURL, inboxURL], configuration: ClientTestSupport.quickConfiguration(), logger: testLogger("pool"))
        await pool.connect()
        let event = try TestEvents.make(createdAt: ClientTestSupport.now)
        let result = await pool.publish(event, to: nil, until: .acceptance(among: [inboxURL]))
        #expect(result.accepted.contains(inboxURL), "\(result)")
        #expect(try await inbox.storedEventCount() == 1)
        await pool.disconnect()
        await fast.stop()
        await inbox.stop()
    }
}
