import Foundation
import Nostr
import NostrClient
@testable import NostrRelay
import TestSupport
import Testing

/// NIP-42 in the embedded relay over loopback sockets: a challenge per connection, AUTH answered
/// with OK, gift wraps only for their recipient (`inbox`), AUTH before anything (`all`), writers
/// limited by `allowedWriters`, and our own client authenticating on its own.
@Suite(.timeLimit(.minutes(2))) struct RelayAuthServerTests {
    static let alice = TestEvents.alice, bob = TestEvents.bob

    static func configuration(_ mode: RelayAuthMode, writers: Set<PublicKey> = []) -> RelayConfiguration {
        var configuration = RelayConfiguration()
        configuration.auth = RelayAuthConfiguration(mode: mode, allowedWriters: writers)
        return configuration
    }

    /// A socket and the challenge the relay sent it first.
    static func connect(_ url: String) async throws -> (RawSocket, String) {
        let socket = try await RawSocket.connect(url)
        guard case .auth(let challenge)? = await socket.nextMessage() else {
            socket.close()
            throw RelayTestError.closed("no AUTH challenge")
        }
        return (socket, challenge)
    }

    static func authEvent(_ keys: Keys, relay: String, challenge: String, createdAt: Int64 = TestEvents.now) throws -> Event {
        try UnsignedEvent.authentication(pubkey: keys.publicKey, relay: relay, challenge: challenge, createdAt: createdAt)
            .signed(with: keys)
    }

    /// Sends AUTH and returns the relay's answer.
    static func authenticate(_ socket: RawSocket, _ keys: Keys, relay: String, challenge: String,
                             createdAt: Int64 = TestEvents.now) async throws -> RelayMessage? {
        socket.send(ClientMessage.auth(try authEvent(keys, relay: relay, challenge: challenge, createdAt: createdAt)).jsonString)
        return await socket.nextMessage()
    }

    static func isOK(_ message: RelayMessage?, _ accepted: Bool, prefix: String = "") -> Bool {
        guard case .ok(_, let ok, let reason)? = message else { return false }
        return ok == accepted && reason.hasPrefix(prefix)
    }

    static func isClosed(_ message: RelayMessage?, _ sub: SubscriptionID, prefix: String) -> Bool {
        guard case .closed(let closed, let reason)? = message else { return false }
        return closed == sub && reason.hasPrefix(prefix)
    }

    static func wrap(to recipient: Keys, content: String = "sealed") throws -> Event {
        try TestEvents.make(kind: .giftWrap, content: content, tags: [.pubkey(recipient.publicKey)],
                            createdAt: TestEvents.now, keys: Keys.generate())
    }

    @Test func eachConnectionGetsItsOwnChallengeAndAGoodAnswerIsAccepted() async throws {
        try await withRelay(Self.configuration(.inbox)) { _, url in
            let (first, challenge) = try await Self.connect(url)
            let (second, other) = try await Self.connect(url)
            defer { first.close(); second.close() }
            #expect(challenge != other && challenge.count >= 16)
            let answer = try Self.authEvent(Self.alice, relay: url, challenge: challenge)
            first.send(ClientMessage.auth(answer).jsonString)
            #expect(await first.nextMessage() == .ok(answer.id, accepted: true, message: ""))
            // A second pubkey on the same connection; `localhost` names the same relay.
            let port = try #require(URLComponents(string: url)?.port)
            #expect(Self.isOK(try await Self.authenticate(first, Self.bob, relay: "ws://localhost:\(port)/", challenge: challenge), true))
            // The other connection's challenge does not authenticate this one.
            let stolen = try await Self.authenticate(second, Self.alice, relay: url, challenge: challenge)
            #expect(Self.isOK(stolen, false, prefix: "invalid: the challenge"), "\(String(describing: stolen))")
            // A relay tag naming another relay, and an answer signed 20 minutes ago.
            let elsewhere = try await Self.authenticate(second, Self.alice, relay: "wss://relay.example.com", challenge: other)
            #expect(Self.isOK(elsewhere, false, prefix: "invalid: the relay tag"), "\(String(describing: elsewhere))")
            let otherPort = try await Self.authenticate(second, Self.alice, relay: "ws://127.0.0.1:\(port + 1)", challenge: other)
            #expect(Self.isOK(otherPort, false, prefix: "invalid: the relay tag"), "\(String(describing: otherPort))")
            let stale = try await Self.authenticate(second, Self.alice, relay: url, challenge: other, createdAt: TestEvents.now - 1200)
            #expect(Self.isOK(stale, false, prefix: "invalid: created_at"), "\(String(describing: stale))")
            // An AUTH event sent as an EVENT is neither stored nor broadcast (NIP-42).
            second.send(ClientMessage.event(try Self.authEvent(Self.alice, relay: url, challenge: other)).jsonString)
            #expect(Self.isOK(await second.nextMessage(), false, prefix: "invalid: kind 22242"))
        }
    }

    @Test func withoutAuthNoChallengeIsSentAndAuthIsRefused() async throws {
        try await withRelay { _, url in
            let socket = try await RawSocket.connect(url)
            defer { socket.close() }
            #expect(await socket.next(timeout: 0.3) == nil)
            let answer = try await Self.authenticate(socket, Self.alice, relay: url, challenge: "anything")
            #expect(Self.isOK(answer, false, prefix: "restricted:"), "\(String(describing: answer))")
        }
    }

    @Test func inboxGiftWrapsGoOnlyToTheirRecipientStoredAndLive() async throws {
        try await withRelay(Self.configuration(.inbox)) { _, url in
            let (bob, bobChallenge) = try await Self.connect(url)
            let (alice, aliceChallenge) = try await Self.connect(url)
            let (anonymous, _) = try await Self.connect(url)
            let (sender, _) = try await Self.connect(url)
            defer { for socket in [bob, alice, anonymous, sender] { socket.close() } }
            #expect(Self.isOK(try await Self.authenticate(bob, Self.bob, relay: url, challenge: bobChallenge), true))
            #expect(Self.isOK(try await Self.authenticate(alice, Self.alice, relay: url, challenge: aliceChallenge), true))

            // Writes of gift wraps are open: anyone can send an invitation, unauthenticated.
            let stored = try Self.wrap(to: Self.bob, content: "stored")
            sender.send(ClientMessage.event(stored).jsonString)
            #expect(await sender.nextMessage() == .ok(stored.id, accepted: true, message: ""))
            let note = try TestEvents.make(content: "public", createdAt: TestEvents.now - 5)
            sender.send(ClientMessage.event(note).jsonString)
            #expect(await sender.nextMessage() == .ok(note.id, accepted: true, message: ""))

            // Our client's gift-wrap REQ: refused unauthenticated (auth-required) and for others (restricted).
            let wraps = SubscriptionID("wraps")
            let forBob = [Filter(kinds: [.giftWrap], tags: ["p": [Self.bob.publicKey.hex]])]
            anonymous.send(ClientMessage.req(wraps, forBob).jsonString)
            #expect(Self.isClosed(await anonymous.nextMessage(), wraps, prefix: "auth-required:"))
            alice.send(ClientMessage.req(wraps, forBob).jsonString)
            #expect(Self.isClosed(await alice.nextMessage(), wraps, prefix: "restricted:"))
            bob.send(ClientMessage.req(wraps, forBob).jsonString)
            #expect(await bob.collectUntilEOSE(wraps) == [.event(wraps, stored)])

            // A REQ for everything gets the other events, never the gift wrap.
            let everything = SubscriptionID("all")
            for socket in [anonymous, alice] {
                socket.send(ClientMessage.req(everything, [Filter()]).jsonString)
                #expect(await socket.collectUntilEOSE(everything) == [.event(everything, note)])
            }
            // Alice may ask for gift wraps in general: only hers would come.
            let anyWraps = SubscriptionID("any-wraps")
            alice.send(ClientMessage.req(anyWraps, [Filter(kinds: [.giftWrap])]).jsonString)
            #expect(await alice.collectUntilEOSE(anyWraps) == [])

            // Live: a new wrap for Bob reaches Bob only; the next wrap, for Alice, reaches her (and
            // comes first on her socket, so Bob's never came), and the note after reaches the
            // anonymous socket first.
            let live = try Self.wrap(to: Self.bob, content: "live")
            let forAlice = try Self.wrap(to: Self.alice, content: "for alice")
            let after = try TestEvents.make(content: "after", createdAt: TestEvents.now)
            for event in [live, forAlice, after] {
                sender.send(ClientMessage.event(event).jsonString)
                #expect(await sender.nextMessage() == .ok(event.id, accepted: true, message: ""))
            }
            #expect(await bob.nextMessage() == .event(wraps, live))
            #expect(await bob.next(timeout: 0.3) == nil)
            var aliceGot: [RelayMessage] = []
            for _ in 0..<3 { if let message = await alice.nextMessage() { aliceGot.append(message) } }
            #expect(Set(aliceGot) == [.event(everything, forAlice), .event(anyWraps, forAlice), .event(everything, after)],
                    "\(aliceGot)")
            #expect(await anonymous.nextMessage() == .event(everything, after))
            #expect(await anonymous.next(timeout: 0.3) == nil)
        }
    }

    @Test func allRefusesUnauthenticatedEventsAndREQsThenServesThem() async throws {
        try await withRelay(Self.configuration(.all)) { server, url in
            let (socket, challenge) = try await Self.connect(url)
            defer { socket.close() }
            let note = try TestEvents.make(createdAt: TestEvents.now)
            socket.send(ClientMessage.event(note).jsonString)
            #expect(Self.isOK(await socket.nextMessage(), false, prefix: "auth-required:"))
            let sub = SubscriptionID("notes")
            socket.send(ClientMessage.req(sub, [Filter(kinds: [.textNote])]).jsonString)
            #expect(Self.isClosed(await socket.nextMessage(), sub, prefix: "auth-required:"))
            #expect(try await server.storedEventCount() == 0)

            #expect(Self.isOK(try await Self.authenticate(socket, Self.alice, relay: url, challenge: challenge), true))
            socket.send(ClientMessage.event(note).jsonString)
            #expect(await socket.nextMessage() == .ok(note.id, accepted: true, message: ""))
            socket.send(ClientMessage.req(sub, [Filter(kinds: [.textNote])]).jsonString)
            #expect(await socket.collectUntilEOSE(sub) == [.event(sub, note)])
            // Gift wraps stay with their recipient here too.
            let wrap = try Self.wrap(to: Self.bob)
            socket.send(ClientMessage.event(wrap).jsonString)
            #expect(await socket.nextMessage() == .ok(wrap.id, accepted: true, message: ""))
            let wraps = SubscriptionID("wraps")
            socket.send(ClientMessage.req(wraps, [Filter(kinds: [.giftWrap], tags: ["p": [Self.bob.publicKey.hex]])]).jsonString)
            #expect(Self.isClosed(await socket.nextMessage(), wraps, prefix: "restricted:"))
        }
    }

    @Test func allowedWritersAloneMayWriteAnyAuthenticatedClientMayRead() async throws {
        try await withRelay(Self.configuration(.all, writers: [Self.bob.publicKey])) { _, url in
            let (alice, aliceChallenge) = try await Self.connect(url)
            let (bob, bobChallenge) = try await Self.connect(url)
            defer { alice.close(); bob.close() }
            #expect(Self.isOK(try await Self.authenticate(alice, Self.alice, relay: url, challenge: aliceChallenge), true))
            #expect(Self.isOK(try await Self.authenticate(bob, Self.bob, relay: url, challenge: bobChallenge), true))
            let refused = try TestEvents.make(content: "alice", createdAt: TestEvents.now)
            alice.send(ClientMessage.event(refused).jsonString)
            #expect(Self.isOK(await alice.nextMessage(), false, prefix: "restricted:"))
            let accepted = try TestEvents.make(content: "bob", createdAt: TestEvents.now, keys: Self.bob)
            bob.send(ClientMessage.event(accepted).jsonString)
            #expect(await bob.nextMessage() == .ok(accepted.id, accepted: true, message: ""))
            let sub = SubscriptionID("read")
            alice.send(ClientMessage.req(sub, [Filter(kinds: [.textNote])]).jsonString)
            #expect(await alice.collectUntilEOSE(sub) == [.event(sub, accepted)])
        }
    }

    @Test func theInformationDocumentSaysWhatIsAsked() {
        let none = RelayInformation(configuration: RelayConfiguration())
        #expect(!none.supportedNips.contains(42) && !none.limitation.authRequired)
        let inbox = RelayInformation(configuration: Self.configuration(.inbox))
        #expect(inbox.supportedNips.contains(42) && !inbox.limitation.authRequired)
        let all = RelayInformation(configuration: Self.configuration(.all, writers: [Self.bob.publicKey]))
        #expect(all.supportedNips.contains(42) && all.limitation.authRequired && all.limitation.restrictedWrites)
    }

    /// Our client (NostrClient) on an inbox relay: it answers the challenge and receives its gift
    /// wraps, even when its REQ raced its AUTH (`auth-required:` then a retry).
    @Test func ourClientAuthenticatesAndGetsItsGiftWraps() async throws {
        try await withRelay(Self.configuration(.inbox)) { _, url in
            let wrap = try Self.wrap(to: Self.bob)
            let (sender, _) = try await Self.connect(url)
            defer { sender.close() }
            sender.send(ClientMessage.event(wrap).jsonString)
            #expect(await sender.nextMessage() == .ok(wrap.id, accepted: true, message: ""))
            let client = RelayClient(url: url, authenticator: .signing(with: Self.bob), logger: testLogger("client"))
            await client.connect()
            let events = try await RelayServerTests.stored(
                client, [Filter(kinds: [.giftWrap], tags: ["p": [Self.bob.publicKey.hex]])])
            #expect(events == [wrap])
            await client.disconnect()
        }
    }
}
