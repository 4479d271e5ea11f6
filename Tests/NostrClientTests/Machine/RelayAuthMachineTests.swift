import Nostr
@testable import NostrClient
import Testing

/// NIP-42 in `RelayConnectionMachine`: challenges answered through the driver, the `OK` for the
/// answer tracked, `auth-required:` refusals retried once, and per-connection state.
@Suite struct RelayAuthMachineTests {
    typealias Machine = RelayConnectionMachine
    static let relay = "wss://relay.example"
    static let keys = Keys.generate()

    /// A machine with a signer, connected on socket 1.
    static func connected(authenticates: Bool = true) -> Machine {
        var machine = Machine(seed: 42, authenticates: authenticates)
        _ = machine.handle(.connectRequested)
        _ = machine.handle(.socketOpened(socket: 1))
        return machine
    }

    static func sent(_ actions: [Machine.Action]) -> [ClientMessage] {
        RelayConnectionMachineTests.sent(actions)
    }

    static func signRequests(_ actions: [Machine.Action]) -> [String] {
        actions.compactMap { if case .signAuthentication(_, let challenge) = $0 { challenge } else { nil } }
    }

    static func authEvent(_ challenge: String) throws -> Event {
        try UnsignedEvent.authentication(pubkey: keys.publicKey, relay: relay, challenge: challenge).signed(with: keys)
    }

    static func receive(_ machine: inout Machine, _ message: RelayMessage, socket: UInt64 = 1) -> [Machine.Action] {
        machine.handle(.messageReceived(socket: socket, text: message.jsonString))
    }

    /// Challenge, sign request, signed answer: returns the AUTH event the machine sent.
    static func authenticate(_ machine: inout Machine, challenge: String, socket: UInt64 = 1) throws -> Event {
        let asked = receive(&machine, .auth(challenge: challenge), socket: socket)
        #expect(signRequests(asked) == [challenge])
        let event = try authEvent(challenge)
        let signed = machine.handle(.authenticationSigned(socket: socket, challenge: challenge, event: event))
        #expect(sent(signed) == [.auth(event)])
        return event
    }

    @Test func challengeAsksTheDriverToSignAndSendsAuth() throws {
        var machine = Self.connected()
        let asked = Self.receive(&machine, .auth(challenge: "c1"))
        #expect(asked.contains(.signAuthentication(socket: 1, challenge: "c1")))
        #expect(Self.sent(asked).isEmpty)
        let event = try Self.authEvent("c1")
        let signed = machine.handle(.authenticationSigned(socket: 1, challenge: "c1", event: event))
        #expect(Self.sent(signed) == [.auth(event)])
        #expect(RelayConnectionMachineTests.token(.authTimeout, in: signed) != nil)
        #expect(machine.authState == .notAsked)
    }

    @Test func okForTheAuthEventAuthenticates() throws {
        var machine = Self.connected()
        let event = try Self.authenticate(&machine, challenge: "c1")
        let answered = Self.receive(&machine, .ok(event.id, accepted: true, message: ""))
        #expect(answered.contains(.authChanged(.authenticated)))
        #expect(answered.contains(.cancelTimer(.authTimeout)))
        #expect(!answered.contains { if case .publishFinished = $0 { true } else { false } })
        #expect(machine.authState == .authenticated)
    }

    @Test func refusedAuthIsReportedWithTheRelaysReason() throws {
        var machine = Self.connected()
        let event = try Self.authenticate(&machine, challenge: "c1")
        let answered = Self.receive(&machine, .ok(event.id, accepted: false, message: "restricted: not on the list"))
        #expect(answered.contains(.authChanged(.refused("restricted: not on the list"))))
    }

    @Test func withoutASignerChallengesAreNeverAnswered() throws {
        var machine = Self.connected(authenticates: false)
        #expect(Self.signRequests(Self.receive(&machine, .auth(challenge: "c1"))).isEmpty)
        let event = try TestEvents.make()
        _ = machine.handle(.publishRequested(event))
        let refused = Self.receive(&machine, .ok(event.id, accepted: false, message: "auth-required: sign in"))
        #expect(refused.contains(.publishFinished(event.id, .rejected(reason: "auth-required: sign in"))))
        #expect(Self.sent(refused).isEmpty)
    }

    @Test func authRequiredPublishAuthenticatesThenRetriesOnce() throws {
        var machine = Self.connected()
        let note = try TestEvents.make()
        _ = machine.handle(.publishRequested(note))
        // rust-nostr's relay: the challenge comes with the refusal.
        let asked = Self.receive(&machine, .auth(challenge: "c1"))
        #expect(Self.signRequests(asked) == ["c1"])
        let refused = Self.receive(&machine, .ok(note.id, accepted: false, message: "auth-required: you must auth"))
        #expect(refused.isEmpty, "held for the AUTH in flight: \(refused)")
        let event = try Self.authEvent("c1")
        _ = machine.handle(.authenticationSigned(socket: 1, challenge: "c1", event: event))
        let accepted = Self.receive(&machine, .ok(event.id, accepted: true, message: ""))
        #expect(Self.sent(accepted) == [.event(note)])
        let done = Self.receive(&machine, .ok(note.id, accepted: true, message: ""))
        #expect(done.contains(.publishFinished(note.id, .accepted(message: ""))))
    }

    @Test func aSecondAuthRequiredEndsThePublishWithTheReason() throws {
        var machine = Self.connected()
        let note = try TestEvents.make()
        _ = machine.handle(.publishRequested(note))
        let event = try Self.authenticate(&machine, challenge: "c1")
        _ = Self.receive(&machine, .ok(note.id, accepted: false, message: "auth-required: first"))
        let accepted = Self.receive(&machine, .ok(event.id, accepted: true, message: ""))
        #expect(Self.sent(accepted) == [.event(note)])
        let again = Self.receive(&machine, .ok(note.id, accepted: false, message: "auth-required: still not"))
        #expect(again.contains(.publishFinished(note.id, .rejected(reason: "auth-required: still not"))))
        #expect(again.contains(.failed(.rejected("auth-required: still not"))))
        #expect(Self.sent(again).isEmpty && Self.signRequests(again).isEmpty)
    }

    @Test func authRequiredWithoutAChallengeFailsAtOnce() throws {
        var machine = Self.connected()
        let note = try TestEvents.make()
        _ = machine.handle(.publishRequested(note))
        let refused = Self.receive(&machine, .ok(note.id, accepted: false, message: "auth-required: who are you"))
        #expect(refused.contains(.publishFinished(note.id, .rejected(reason: "auth-required: who are you"))))
    }

    @Test func authRequiredOnAnAuthenticatedConnectionRetriesAtOnce() throws {
        var machine = Self.connected()
        let event = try Self.authenticate(&machine, challenge: "c1")
        _ = Self.receive(&machine, .ok(event.id, accepted: true, message: ""))
        let note = try TestEvents.make()
        _ = machine.handle(.publishRequested(note))
        let refused = Self.receive(&machine, .ok(note.id, accepted: false, message: "auth-required: raced"))
        #expect(Self.sent(refused) == [.event(note)])
        #expect(Self.signRequests(refused).isEmpty)
    }

    @Test func heldPublishFailsWithItsReasonWhenAuthIsRefused() throws {
        var machine = Self.connected()
        let note = try TestEvents.make()
        _ = machine.handle(.publishRequested(note))
        let event = try Self.authenticate(&machine, challenge: "c1")
        _ = Self.receive(&machine, .ok(note.id, accepted: false, message: "auth-required: members only"))
        let refused = Self.receive(&machine, .ok(event.id, accepted: false, message: "restricted: not a member"))
        #expect(refused.contains(.authChanged(.refused("restricted: not a member"))))
        #expect(refused.contains(.publishFinished(note.id, .rejected(reason: "auth-required: members only"))))
    }

    @Test func closedAuthRequiredAuthenticatesThenSendsTheReqOnce() throws {
        var machine = Self.connected()
        let sub = SubscriptionID("dms")
        let filter = Filter(kinds: [.giftWrap], tags: ["p": [Self.keys.publicKey.hex]])
        _ = machine.handle(.subscribeRequested(sub, [filter]))
        let asked = Self.receive(&machine, .auth(challenge: "c1"))
        #expect(Self.signRequests(asked) == ["c1"])
        let closed = Self.receive(&machine, .closed(sub, message: "auth-required: you must auth"))
        #expect(RelayConnectionMachineTests.delivered(closed).isEmpty, "held: \(closed)")
        let event = try Self.authEvent("c1")
        _ = machine.handle(.authenticationSigned(socket: 1, challenge: "c1", event: event))
        let accepted = Self.receive(&machine, .ok(event.id, accepted: true, message: ""))
        guard case .req(let id, _)? = Self.sent(accepted).first else {
            Issue.record("no REQ after AUTH: \(accepted)")
            return
        }
        #expect(id == sub && Self.sent(accepted).count == 1)
        let again = Self.receive(&machine, .closed(sub, message: "auth-required: not yours"))
        #expect(RelayConnectionMachineTests.delivered(again) == [.closed(reason: "auth-required: not yours")])
        #expect(Self.sent(again).isEmpty)
        #expect(machine.subscriptionIDs.isEmpty)
    }

    @Test func aNewConnectionClearsTheChallengeAndTheSession() throws {
        var machine = Self.connected()
        let event = try Self.authenticate(&machine, challenge: "c1")
        _ = Self.receive(&machine, .ok(event.id, accepted: true, message: ""))
        let dropped = machine.handle(.socketClosed(socket: 1, reason: "gone"))
        #expect(dropped.contains(.authChanged(.notAsked)))
        guard let token = RelayConnectionMachineTests.token(.reconnect, in: dropped) else {
            Issue.record("no reconnect")
            return
        }
        _ = machine.handle(.timerFired(.reconnect, token: token))
        _ = machine.handle(.socketOpened(socket: 2))
        // The old challenge is gone: an auth-required refusal cannot be answered until a new one.
        let note = try TestEvents.make()
        _ = machine.handle(.publishRequested(note))
        let refused = Self.receive(&machine, .ok(note.id, accepted: false, message: "auth-required: again"), socket: 2)
        #expect(refused.contains(.publishFinished(note.id, .rejected(reason: "auth-required: again"))))
        #expect(Self.signRequests(refused).isEmpty)
        // A late signature for the old connection is dropped; the new challenge is answered.
        #expect(machine.handle(.authenticationSigned(socket: 1, challenge: "c1", event: event)).isEmpty)
        _ = try Self.authenticate(&machine, challenge: "c2", socket: 2)
    }

    @Test func aSignerThatDeclinesRefusesAndFailsWhatWaited() throws {
        var machine = Self.connected()
        let note = try TestEvents.make()
        _ = machine.handle(.publishRequested(note))
        _ = Self.receive(&machine, .auth(challenge: "c1"))
        _ = Self.receive(&machine, .ok(note.id, accepted: false, message: "auth-required: sign in"))
        let declined = machine.handle(.authenticationSigned(socket: 1, challenge: "c1", event: nil))
        #expect(declined.contains { if case .authChanged(.refused) = $0 { true } else { false } })
        #expect(declined.contains(.publishFinished(note.id, .rejected(reason: "auth-required: sign in"))))
    }

    @Test func noOkForTheAuthTimesOut() throws {
        var machine = Self.connected()
        _ = Self.receive(&machine, .auth(challenge: "c1"))
        let signed = machine.handle(.authenticationSigned(socket: 1, challenge: "c1", event: try Self.authEvent("c1")))
        let token = try #require(RelayConnectionMachineTests.token(.authTimeout, in: signed))
        let fired = machine.handle(.timerFired(.authTimeout, token: token))
        #expect(fired.contains(.authChanged(.refused("client: no answer to AUTH"))))
    }

    @Test func aRelayThatKeepsChallengingIsAnsweredABoundedNumberOfTimes() throws {
        var machine = Self.connected()
        var requests = 0
        for n in 0..<10 {
            let challenge = "c\(n)"
            let asked = Self.receive(&machine, .auth(challenge: challenge))
            requests += Self.signRequests(asked).count
            guard !Self.signRequests(asked).isEmpty else { continue }
            let event = try Self.authEvent(challenge)
            _ = machine.handle(.authenticationSigned(socket: 1, challenge: challenge, event: event))
            _ = Self.receive(&machine, .ok(event.id, accepted: false, message: "restricted: no"))
        }
        #expect(requests == RelayAuthSession.maxAttempts)
    }

    @Test func theAuthenticatorSignsAFreshKind22242ForTheRelayAndChallenge() async throws {
        let event = try #require(await RelayAuthenticator.signing(with: Self.keys).answer(relay: Self.relay, challenge: "xyz"))
        #expect(event.isAuthentication(challenge: "xyz", relay: Self.relay))
        #expect(event.pubkey == Self.keys.publicKey)
        let first = try #require(await RelayAuthenticator.throwaway.answer(relay: Self.relay, challenge: "xyz"))
        let second = try #require(await RelayAuthenticator.throwaway.answer(relay: Self.relay, challenge: "xyz"))
        #expect(first.isAuthentication(challenge: "xyz", relay: Self.relay))
        #expect(first.pubkey != Self.keys.publicKey && first.pubkey != second.pubkey)
    }
}
