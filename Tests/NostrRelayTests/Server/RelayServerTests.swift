import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Nostr
import NostrClient
@testable import NostrRelay
import TestSupport
import Testing

/// The embedded relay over loopback: NIP-01 with our client and with raw sockets, NIP-11, limits.
@Suite(.timeLimit(.minutes(3))) struct RelayServerTests {
    /// Subscribes with `filters` and returns the events before EOSE.
    static func stored(_ client: RelayClient, _ filters: [Filter]) async throws -> [Event] {
        let subscription = await client.subscribe(filters)
        defer { Task { await client.unsubscribe(subscription.id) } }
        return try await withTimeout(60, "stored events") {
            var events: [Event] = []
            for await message in subscription {
                switch message {
                case .event(let event): events.append(event)
                case .endOfStoredEvents: return events
                case .closed(let reason): throw RelayTestError.closed(reason)
                }
            }
            return events
        }
    }

    static func connectedClient(_ url: String) async throws -> RelayClient {
        let client = RelayClient(url: url, logger: testLogger("client"))
        await client.connect()
        _ = try await withTimeout(30, "connect") {
            for await status in await client.statusUpdates() where status == .connected { return true }
            return false
        }
        return client
    }

    @Test func publishThenSubscribeLive() async throws {
        try await withRelay { _, url in
            let subscriber = try await Self.connectedClient(url)
            let publisher = try await Self.connectedClient(url)
            let stored = try TestEvents.make(content: "stored", createdAt: TestEvents.now - 10)
            #expect(await publisher.publish(stored) == .accepted(message: ""))
            let subscription = await subscriber.subscribe([Filter(kinds: [.textNote])])
            var iterator = subscription.makeAsyncIterator()
            #expect(await iterator.next() == .event(stored))
            #expect(await iterator.next() == .endOfStoredEvents)
            let live = try TestEvents.make(content: "live", createdAt: TestEvents.now)
            #expect(await publisher.publish(live).isAccepted)
            #expect(await iterator.next() == .event(live))
            await subscriber.disconnect()
            await publisher.disconnect()
        }
    }

    @Test func eachFilterFieldSelectsTheRightEvents() async throws {
        try await withRelay { _, url in
            let client = try await Self.connectedClient(url)
            let group = String(repeating: "cd", count: 32)
            let base = TestEvents.now - 1000
            let note = try TestEvents.make(content: "note", tags: [.pubkey(TestEvents.bob.publicKey)], createdAt: base)
            let message = try TestEvents.make(kind: .groupMessage, content: "m", tags: [Tag(["h", group])], createdAt: base + 10)
            let reply = try TestEvents.make(content: "reply", tags: [.event(note.id), Tag(["t", "x"])], createdAt: base + 20,
                                            keys: TestEvents.bob)
            let package = try TestEvents.make(kind: .addressableKeyPackage, content: "kp", tags: [.identifier("slot-1")],
                                              createdAt: base + 30)
            for event in [note, message, reply, package] { #expect(await client.publish(event).isAccepted) }

            func ids(_ filter: Filter) async throws -> [EventID] { try await Self.stored(client, [filter]).map(\.id) }
            #expect(try await ids(Filter(ids: [note.id, package.id])) == [package.id, note.id])
            #expect(try await ids(Filter(authors: [TestEvents.bob.publicKey])) == [reply.id])
            #expect(try await ids(Filter(kinds: [.groupMessage])) == [message.id])
            #expect(try await ids(Filter(tags: ["e": [note.id.hex]])) == [reply.id])
            #expect(try await ids(Filter(tags: ["p": [TestEvents.bob.publicKey.hex]])) == [note.id])
            #expect(try await ids(Filter(tags: ["h": [group]])) == [message.id])
            #expect(try await ids(Filter(tags: ["d": ["slot-1"]])) == [package.id])
            #expect(try await ids(Filter(tags: ["t": ["x"]])) == [reply.id])
            #expect(try await ids(Filter(since: base + 10, until: base + 20)) == [reply.id, message.id])
            #expect(try await ids(Filter(limit: 2)) == [package.id, reply.id])
            // Several filters are ORed.
            #expect(try await Self.stored(client, [Filter(kinds: [.groupMessage]), Filter(authors: [TestEvents.bob.publicKey])])
                .map(\.id) == [reply.id, message.id])
            await client.disconnect()
        }
    }

    @Test func limitAndOrderingNewestFirstTiesByID() async throws {
        try await withRelay { _, url in
            let client = try await Self.connectedClient(url)
            let base = TestEvents.now - 100
            var events: [Event] = []
            for i in 0..<12 { events.append(try TestEvents.make(content: "e\(i)", createdAt: base + Int64(i / 3))) }
            for event in events.shuffled() { #expect(await client.publish(event).isAccepted) }
            let expected = events.sorted { $0.createdAt != $1.createdAt ? $0.createdAt > $1.createdAt : $0.id < $1.id }
            #expect(try await Self.stored(client, [Filter(kinds: [.textNote])]).map(\.id) == expected.map(\.id))
            #expect(try await Self.stored(client, [Filter(kinds: [.textNote], limit: 5)]).map(\.id) == expected.prefix(5).map(\.id))
            await client.disconnect()
        }
    }

    @Test func maxLimitClampsLargeRequests() async throws {
        var configuration = RelayConfiguration()
        configuration.limits.maxLimit = 3
        try await withRelay(configuration) { _, url in
            let client = try await Self.connectedClient(url)
            for i in 0..<5 { #expect(await client.publish(try TestEvents.make(content: "\(i)", createdAt: TestEvents.now - Int64(i))).isAccepted) }
            #expect(try await Self.stored(client, [Filter(limit: 100)]).count == 3)
            await client.disconnect()
        }
    }

    @Test func replaceableAndAddressableEventsAreReplaced() async throws {
        try await withRelay { _, url in
            let client = try await Self.connectedClient(url)
            let now = TestEvents.now
            let profile1 = try TestEvents.make(kind: .metadata, content: "{\"name\":\"a\"}", createdAt: now - 20)
            let profile2 = try TestEvents.make(kind: .metadata, content: "{\"name\":\"b\"}", createdAt: now - 10)
            #expect(await client.publish(profile1).isAccepted)
            #expect(await client.publish(profile2).isAccepted)
            #expect(try await Self.stored(client, [Filter(kinds: [.metadata])]).map(\.id) == [profile2.id])
            // An older version is refused (not stored), with a NIP-01 prefix.
            let stale = try TestEvents.make(kind: .metadata, content: "{}", createdAt: now - 30)
            guard case .rejected(let reason) = await client.publish(stale) else {
                Issue.record("stale replaceable event should be rejected")
                return
            }
            #expect(reason.hasPrefix("duplicate:"))

            let kp1 = try TestEvents.make(kind: .addressableKeyPackage, content: "1", tags: [.identifier("a")], createdAt: now - 20)
            let kpOther = try TestEvents.make(kind: .addressableKeyPackage, content: "2", tags: [.identifier("b")], createdAt: now - 20)
            let kp2 = try TestEvents.make(kind: .addressableKeyPackage, content: "3", tags: [.identifier("a")], createdAt: now - 5)
            for event in [kp1, kpOther, kp2] { #expect(await client.publish(event).isAccepted) }
            #expect(Set(try await Self.stored(client, [Filter(kinds: [.addressableKeyPackage])]).map(\.id)) == [kp2.id, kpOther.id])
            await client.disconnect()
        }
    }

    @Test func duplicateIsAcknowledgedButStoredOnce() async throws {
        try await withRelay { server, url in
            let client = try await Self.connectedClient(url)
            let event = try TestEvents.make(createdAt: TestEvents.now)
            #expect(await client.publish(event) == .accepted(message: ""))
            // The client sends the same id again only after the first publish finished.
            guard case .accepted(let message) = await client.publish(event) else {
                Issue.record("a duplicate is OK true per NIP-01")
                return
            }
            #expect(message.hasPrefix("duplicate:"))
            #expect(try await server.storedEventCount() == 1)
            await client.disconnect()
        }
    }

    @Test func ephemeralEventsAreBroadcastButNotStored() async throws {
        try await withRelay { server, url in
            let subscriber = try await Self.connectedClient(url)
            let publisher = try await Self.connectedClient(url)
            let subscription = await subscriber.subscribe([Filter(kinds: [Kind(20001)])])
            var iterator = subscription.makeAsyncIterator()
            #expect(await iterator.next() == .endOfStoredEvents)
            let event = try TestEvents.make(kind: Kind(20001), content: "typing", createdAt: TestEvents.now)
            #expect(await publisher.publish(event).isAccepted)
            #expect(await iterator.next() == .event(event))
            #expect(try await server.storedEventCount() == 0)
            await subscriber.disconnect()
            await publisher.disconnect()
        }
    }

    @Test func tamperedEventsAreRejectedRaw() async throws {
        try await withRelay { server, url in
            let socket = try await RawSocket.connect(url)
            defer { socket.close() }
            let event = try TestEvents.make(createdAt: TestEvents.now)
            let badSignature = Event(id: event.id, pubkey: event.pubkey, createdAt: event.createdAt, kind: event.kind,
                                     tags: event.tags, content: event.content, sig: TestEvents.bob.sign(event.id.bytes))
            socket.send(ClientMessage.event(badSignature).jsonString)
            #expect(await socket.nextMessage() == .ok(event.id, accepted: false, message: "invalid: bad signature"))
            // Content changed under the original id and signature.
            let json = event.jsonString.replacingOccurrences(of: "\"hello\"", with: "\"hullo\"")
            socket.send("[\"EVENT\",\(json)]")
            guard case .ok(let id, false, let reason)? = await socket.nextMessage() else {
                Issue.record("expected OK false")
                return
            }
            #expect(id == event.id && reason.hasPrefix("invalid:"))
            // Structurally broken event with a readable id: still an OK false for that id.
            socket.send("[\"EVENT\",{\"id\":\"\(event.id.hex)\",\"kind\":\"one\"}]")
            guard case .ok(let brokenID, false, let brokenReason)? = await socket.nextMessage() else {
                Issue.record("expected OK false for a malformed event")
                return
            }
            #expect(brokenID == event.id && brokenReason.hasPrefix("invalid:"))
            #expect(try await server.storedEventCount() == 0)
        }
    }

    @Test func futureEventsAreRejected() async throws {
        try await withRelay { _, url in
            let client = try await Self.connectedClient(url)
            let event = try TestEvents.make(createdAt: TestEvents.now + 3600)
            guard case .rejected(let reason) = await client.publish(event) else {
                Issue.record("expected a rejection")
                return
            }
            #expect(reason.hasPrefix("invalid:"))
            await client.disconnect()
        }
    }

    @Test func malformedMessagesGetNotices() async throws {
        try await withRelay { _, url in
            let socket = try await RawSocket.connect(url)
            defer { socket.close() }
            for text in ["{not json", "[]", "{\"a\":1}", "[\"HELLO\"]", "[\"CLOSE\"]", "[42]"] {
                socket.send(text)
                guard case .notice(let notice)? = await socket.nextMessage() else {
                    Issue.record("expected NOTICE for \(text)")
                    continue
                }
                #expect(notice.hasPrefix("invalid:"), "\(text): \(notice)")
            }
            // Still usable afterwards.
            socket.send(ClientMessage.req("ok", [Filter(kinds: [.textNote])]).jsonString)
            #expect(await socket.nextMessage() == .eose("ok"))
        }
    }

    @Test func badSubscriptionsAreClosed() async throws {
        var configuration = RelayConfiguration()
        configuration.limits.maxSubscriptions = 2
        let maxFilters = configuration.limits.maxFilters
        try await withRelay(configuration) { _, url in
            let socket = try await RawSocket.connect(url)
            defer { socket.close() }
            let tooMany = Array(repeating: Filter(kinds: [.textNote]), count: maxFilters + 1)
            socket.send(ClientMessage.req("many", tooMany).jsonString)
            guard case .closed("many", let reason)? = await socket.nextMessage() else {
                Issue.record("expected CLOSED for too many filters")
                return
            }
            #expect(reason.hasPrefix("invalid:"))
            // A malformed filter (bad author hex) closes the subscription too.
            socket.send("[\"REQ\",\"bad\",{\"authors\":[\"xyz\"]}]")
            guard case .closed("bad", let badReason)? = await socket.nextMessage() else {
                Issue.record("expected CLOSED for a malformed filter")
                return
            }
            #expect(badReason.hasPrefix("invalid:"))
            // Subscription count limit.
            for sub in ["a", "b"] {
                socket.send(ClientMessage.req(SubscriptionID(sub), [Filter(kinds: [.textNote])]).jsonString)
                #expect(await socket.nextMessage() == .eose(SubscriptionID(sub)))
            }
            socket.send(ClientMessage.req("c", [Filter(kinds: [.textNote])]).jsonString)
            guard case .closed("c", let limitReason)? = await socket.nextMessage() else {
                Issue.record("expected CLOSED for too many subscriptions")
                return
            }
            #expect(limitReason.hasPrefix("blocked:"))
            // Replacing an existing subscription is allowed at the limit.
            socket.send(ClientMessage.req("a", [Filter(kinds: [.metadata])]).jsonString)
            #expect(await socket.nextMessage() == .eose("a"))
        }
    }

    @Test func oversizeMessagesCloseTheConnectionAndTheRelayStaysUp() async throws {
        try await withRelay { server, url in
            let limit = server.configuration.limits.maxMessageLength
            // Refused at the frame (close 1009) before it is read whole: see RelayGuardTests.
            let socket = try await RawSocket.connect(url)
            let big = try TestEvents.make(content: String(repeating: "x", count: limit + 10), createdAt: TestEvents.now)
            socket.send(ClientMessage.event(big).jsonString)
            #expect(await socket.waitClosed(timeout: 10))
            socket.close()
            // A Marmot-sized event (welcome gift wrap ~5 KB, here 600 KB) is fine on a new connection.
            let again = try await RawSocket.connect(url)
            defer { again.close() }
            let large = try TestEvents.make(kind: .giftWrap, content: String(repeating: "w", count: 600_000), createdAt: TestEvents.now)
            again.send(ClientMessage.event(large).jsonString)
            #expect(await again.nextMessage(timeout: 10) == .ok(large.id, accepted: true, message: ""))
            #expect(try await server.storedEventCount() == 1)
        }
    }

    @Test func closeStopsLiveEvents() async throws {
        try await withRelay { _, url in
            let socket = try await RawSocket.connect(url)
            defer { socket.close() }
            socket.send(ClientMessage.req("s", [Filter(kinds: [.textNote])]).jsonString)
            #expect(await socket.nextMessage() == .eose("s"))
            socket.send(ClientMessage.close("s").jsonString)
            let event = try TestEvents.make(createdAt: TestEvents.now)
            socket.send(ClientMessage.event(event).jsonString)
            // Only the OK comes back, no EVENT for the closed subscription.
            #expect(await socket.nextMessage() == .ok(event.id, accepted: true, message: ""))
            #expect(await socket.next(timeout: 0.3) == nil)
        }
    }

    @Test func informationDocumentIsServed() async throws {
        try await withRelay { server, url in
            let port = try #require(await server.port)
            var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/")))
            request.setValue("application/nostr+json", forHTTPHeaderField: "Accept")
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 200)
            #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/nostr+json")
            #expect(http.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == "*")
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(object["name"] as? String == "marmot-relay")
            #expect((object["supported_nips"] as? [Int])?.contains(1) == true)
            let limitation = try #require(object["limitation"] as? [String: Any])
            #expect(limitation["max_message_length"] as? Int == 1 << 20)
            #expect(limitation["max_subscriptions"] as? Int == 50)
            #expect(limitation["max_filters"] as? Int == 20)
            #expect(limitation["max_limit"] as? Int == 5000)
            #expect(limitation["max_stored_bytes"] as? Int == 1 << 30)
            #expect(limitation["max_connections"] as? Int == 256)
            #expect(limitation["max_events_per_second"] as? Double == 50)
            #expect(object["software"] is String && object["version"] is String && object["description"] is String)
            _ = url
        }
    }

    @Test func serverBindsFreePortAndRestarts() async throws {
        let server = RelayServer(logger: testLogger("relay"))
        let port = try await server.start()
        #expect(port > 0)
        await #expect(throws: RelayServerError.self) { try await server.start() }
        await server.stop()
        #expect(await server.port == nil)
        let again = try await server.start()
        #expect(again > 0)
        await server.stop()
    }
}

enum RelayTestError: Error {
    case closed(String)
}
