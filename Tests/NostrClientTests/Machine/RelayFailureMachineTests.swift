import Nostr
@testable import NostrClient
import Testing

/// The machine names each failure (issue 17): a connection that never opened, one that dropped, a
/// connect timeout, and refusals on a working connection.
@Suite struct RelayFailureMachineTests {
    typealias Machine = RelayConnectionMachine

    static func failures(_ actions: [Machine.Action]) -> [RelayFailure] {
        actions.compactMap { action in
            if case .failed(let failure) = action { return failure }
            return nil
        }
    }

    @Test func socketThatNeverOpenedIsAConnectFailure() {
        var machine = Machine(seed: 1)
        _ = machine.handle(.connectRequested)
        let actions = machine.handle(.socketClosed(socket: 1, reason: "connection refused"))
        #expect(Self.failures(actions) == [.connectFailed("connection refused")])
        #expect(RelayReport(status: machine.currentStatus, lastFailure: .connectFailed("connection refused")).failingReason
            == .connectFailed("connection refused"))
    }

    @Test func openSocketThatClosesIsALostConnection() {
        var machine = RelayConnectionMachineTests.connected()
        let actions = machine.handle(.socketClosed(socket: 1, reason: "closed by the relay (going away: restarting)"))
        #expect(Self.failures(actions) == [.connectionLost("closed by the relay (going away: restarting)")])
        #expect(!machine.currentStatus.isConnected)
    }

    @Test func connectTimeoutIsNamed() throws {
        var machine = Machine(seed: 1)
        let opened = machine.handle(.connectRequested)
        let token = try #require(RelayConnectionMachineTests.token(.connectTimeout, in: opened))
        #expect(Self.failures(machine.handle(.timerFired(.connectTimeout, token: token))) == [.timedOut])
    }

    @Test func refusalsAreReportedWithoutDroppingTheConnection() throws {
        var machine = RelayConnectionMachineTests.connected()
        let event = try TestEvents.make()
        _ = machine.handle(.publishRequested(event))
        let no = RelayMessage.ok(event.id, accepted: false, message: "blocked: not on the list").jsonString
        #expect(Self.failures(machine.handle(.messageReceived(socket: 1, text: no))) == [.rejected("blocked: not on the list")])
        _ = machine.handle(.subscribeRequested("s", [Filter(kinds: [.textNote])]))
        let closed = RelayMessage.closed("s", message: "auth-required: sign in").jsonString
        #expect(Self.failures(machine.handle(.messageReceived(socket: 1, text: closed))) == [.subscriptionClosed("auth-required: sign in")])
        #expect(machine.currentStatus == .connected)
        #expect(RelayReport(status: .connected, lastFailure: .rejected("blocked: x")).failingReason == nil)
        #expect(RelayReport(status: .waitingToReconnect(attempt: 1, retryIn: .seconds(1)), lastFailure: .rejected("x")).failingReason == nil,
                "a refusal alone never makes a relay failing")
    }

    @Test func firstAttemptAndDeliberateDisconnectAreNotFailing() {
        #expect(RelayReport(status: .connecting(attempt: 0), lastFailure: .timedOut).failingReason == nil)
        #expect(RelayReport(status: .disconnected, lastFailure: .timedOut).failingReason == nil)
        #expect(RelayReport(status: .connecting(attempt: 2), lastFailure: .timedOut).failingReason == .timedOut)
    }
}
