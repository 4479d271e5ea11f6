import Foundation
import Nostr
@testable import NostrRelay
import TestSupport
import Testing

/// What each `RelayFaults` rule puts on the wire, seen through a raw WebSocket.
@Suite(.timeLimit(.minutes(3))) struct RelayFaultsTests {
    static func configuration(_ faults: RelayFaults) -> RelayConfiguration {
        var configuration = RelayConfiguration()
        configuration.faults = faults
        return configuration
    }

    @Test func rejectWithAnswersOKFalseWithTheReasonAndStoresNothing() async throws {
        let faults = RelayFaults(rejectWith: { _ in "rate-limited: slow down" })
        try await withRelay(Self.configuration(faults)) { server, url in
            let socket = try await RawSocket.connect(url)
            let event = try TestEvents.make(createdAt: Int64(Date().timeIntervalSince1970))
            socket.send(ClientMessage.event(event).jsonString)
            #expect(await socket.nextMessage() == .ok(event.id, accepted: false, message: "rate-limited: slow down"))
            #expect(try await server.storedEventCount() == 0)
            socket.close()
        }
    }

    @Test func closeOnREQSendsStoredEventsThenClosesWithoutEOSE() async throws {
        let faults = RelayFaults(closeOnREQ: { sub, _ in sub.rawValue == "doomed" })
        try await withRelay(Self.configuration(faults)) { _, url in
            let publisher = try await RawSocket.connect(url)
            let event = try TestEvents.make(createdAt: Int64(Date().timeIntervalSince1970))
            publisher.send(ClientMessage.event(event).jsonString)
            #expect(await publisher.nextMessage() == .ok(event.id, accepted: true, message: ""))

            let fine = try await RawSocket.connect(url)
            fine.send(ClientMessage.req("fine", [Filter()]).jsonString)
            #expect(await fine.collectUntilEOSE("fine") == [.event("fine", event)])

            let doomed = try await RawSocket.connect(url)
            doomed.send(ClientMessage.req("doomed", [Filter()]).jsonString)
            #expect(await doomed.nextMessage() == .event("doomed", event))
            #expect(await doomed.waitClosed(), "the relay closed the socket instead of sending EOSE")
            publisher.close()
            fine.close()
        }
    }

    @Test func answerDelaySlowsTheOK() async throws {
        try await withRelay(Self.configuration(RelayFaults(answerDelay: .milliseconds(700)))) { _, url in
            let socket = try await RawSocket.connect(url)
            let event = try TestEvents.make(createdAt: Int64(Date().timeIntervalSince1970))
            let started = ContinuousClock.now
            socket.send(ClientMessage.event(event).jsonString)
            #expect(await socket.nextMessage() == .ok(event.id, accepted: true, message: ""))
            #expect(ContinuousClock.now - started >= .milliseconds(650))
            socket.close()
        }
    }
}
