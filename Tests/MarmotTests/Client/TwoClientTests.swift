import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Two `MarmotClient`s talking through the embedded relay on loopback.
@Suite(.serialized, .timeLimit(.minutes(3))) struct TwoClientTests {
    /// Bob publishes a key package, Alice opens a chat, Bob joins (and rotates his leaf), both talk.
    static func establish(relay url: String, aliceClock: @escaping @Sendable () -> Int64 = { UnsignedEvent.now() },
                          bobClock: @escaping @Sendable () -> Int64 = { UnsignedEvent.now() },
                          aliceOptions: MarmotClient.Options = ClientHarness.options,
                          bobOptions: MarmotClient.Options = ClientHarness.options)
        async throws -> (alice: TestAccount, bob: TestAccount, aliceChat: Chat, bobChat: Chat)
    {
        let alice = try await TestAccount("alice", relayURLs: [url], clock: aliceClock, options: aliceOptions)
        let bob = try await TestAccount("bob", relayURLs: [url], clock: bobClock, options: bobOptions)
        let published = try await bob.client.publishKeyPackage()
        #expect(published.isPublished)
        // Beside v2, v1 goes out as kind 443 alone (kind 30443 is v2's: White Noise reads every one).
        #expect(published.twin == nil)

        let created = try await alice.client.createChat(with: bob.publicKey)
        #expect(created.isNew)
        #expect(created.welcome?.accepted == [url])
        #expect(created.chat.peer == bob.publicKey)
        #expect(created.chat.epoch == 1)
        #expect(Set(created.chat.members) == [alice.publicKey, bob.publicKey])

        let (bobChat, inviter) = try await bob.waitForWelcome()
        #expect(inviter == alice.publicKey)
        #expect(bobChat.id == created.chat.id)
        #expect(bobChat.nostrGroupID == created.chat.nostrGroupID)
        #expect(bobChat.peer == alice.publicKey)
        #expect(bobChat.admins == [alice.publicKey])
        // MIP-02: the joiner rotates its leaf after joining; Alice applies that commit.
        #expect(try await bob.waitForCommit(epoch: 2) == bob.publicKey)
        #expect(try await alice.waitForCommit(epoch: 2) == bob.publicKey)
        return (alice, bob, created.chat, bobChat)
    }

    @Test func chatLifecycleWithRestart() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (alice, bob, chat, _) = try await Self.establish(relay: url)
        let id = chat.id

        let hello = try await alice.client.send(text: "hello bob", to: id)
        #expect(hello.message.deliveryState == .sent)
        #expect(hello.publish.accepted == [url])
        let received = try await bob.waitForMessage("hello bob")
        #expect(received.sender == alice.publicKey)
        #expect(received.rumorID == hello.id)
        #expect(!received.isMine)
        _ = try await bob.client.send(text: "hi alice", to: id)
        _ = try await alice.waitForMessage("hi alice")

        // Self-updates on both sides, messages keep flowing in the new epochs.
        let aliceUpdate = try await alice.client.selfUpdate(id)
        #expect(aliceUpdate.epoch == 3)
        #expect(try await bob.waitForCommit(epoch: 3) == alice.publicKey)
        let bobUpdate = try await bob.client.selfUpdate(id)
        #expect(bobUpdate.epoch == 4)
        #expect(try await alice.waitForCommit(epoch: 4) == bob.publicKey)
        _ = try await alice.client.send(text: "epoch 4 from alice", to: id)
        _ = try await bob.waitForMessage("epoch 4 from alice")
        _ = try await bob.client.send(text: "epoch 4 from bob", to: id)
        _ = try await alice.waitForMessage("epoch 4 from bob")
        #expect(await alice.epochState(id)?.authenticator == bob.epochState(id)?.authenticator)

        // A second createChat finds the existing chat.
        let again = try await alice.client.createChat(with: bob.publicKey)
        #expect(!again.isNew)
        #expect(again.chat.id == id)

        // Restart both from their database files; everything the relay re-sends is recognised.
        alice = try await alice.restarted()
        bob = try await bob.restarted()
        #expect(try await alice.client.chats().map(\.id) == [id])
        #expect(await alice.epochState(id)?.epoch == 4)
        _ = try await alice.client.send(text: "after restart from alice", to: id)
        _ = try await bob.waitForMessage("after restart from alice")
        _ = try await bob.client.send(text: "after restart from bob", to: id)
        _ = try await alice.waitForMessage("after restart from bob")
        _ = try await alice.client.selfUpdate(id)
        #expect(try await bob.waitForCommit(epoch: 5) == alice.publicKey)

        // Same-second messages are ordered by rumor id, so compare as sets.
        let texts = try await alice.allMessages(id).map(\.content)
        #expect(texts.count == 6)
        #expect(Set(texts) == [
            "hello bob", "hi alice", "epoch 4 from alice", "epoch 4 from bob", "after restart from alice",
            "after restart from bob",
        ])
        #expect(try await bob.allMessages(id).map(\.content) == texts)
        let bobDrops = await bob.pendingEvents().filter { if case .dropped = $0 { true } else { false } }
        #expect(bobDrops.isEmpty, "\(bobDrops)")

        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    @Test func duplicatesAreIgnored() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await Self.establish(relay: url)
        let raw = try await ClientHarness.rawClient(url)

        let sent = try await alice.client.send(text: "only once", to: chat.id)
        _ = try await bob.waitForMessage("only once")
        // Fetch the stored kind-445 event and the Welcome and deliver them again, directly and via the relay.
        let stored = try await withTimeout(60, "fetch") {
            var events: [Event] = []
            for await message in await raw.subscribe([Filter(kinds: [.groupMessage, .giftWrap])]) {
                if case .event(let event) = message { events.append(event) }
                if message == .endOfStoredEvents { break }
            }
            return events
        }
        let message = try #require(stored.first { $0.id == sent.message.outerEventID })
        let welcome = try #require(stored.first { $0.kind == .giftWrap })
        await bob.client.deliverForTesting(message)
        await bob.client.deliverForTesting(welcome)
        for event in stored { await bob.client.deliverForTesting(event) }
        #expect(await raw.publish(message).isAccepted)

        _ = try await alice.client.send(text: "after duplicates", to: chat.id)
        _ = try await bob.waitForMessage("after duplicates")
        let seen = await bob.pendingEvents()
        #expect(!seen.contains { if case .messageReceived = $0 { true } else { false } })
        #expect(!seen.contains { if case .dropped = $0 { true } else { false } })
        #expect(!seen.contains { if case .welcomeJoined = $0 { true } else { false } })
        #expect(try await bob.allMessages(chat.id).map(\.content).sorted() == ["after duplicates", "only once"])
        #expect(try await bob.client.chats().count == 1)

        await raw.disconnect()
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    @Test func garbageIsDroppedAndClientsKeepWorking() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await Self.establish(relay: url)
        let raw = try await ClientHarness.rawClient(url)
        let h = chat.nostrGroupID.hex

        func groupEvent(tags: [Tag], content: String) throws -> Event {
            let throwaway = Keys.generate()
            return try UnsignedEvent(pubkey: throwaway.publicKey, kind: .groupMessage, tags: tags, content: content)
                .signed(with: throwaway)
        }
        // Random bytes under the group's h: does not decrypt.
        let randomBytes = (0..<80).map { _ in UInt8.random(in: 0...255) }
        let noise = try groupEvent(tags: [Tag(["h", h]), Tag(["encoding", "base64"])], content: Base64.encode(randomBytes))
        // Not base64.
        let notBase64 = try groupEvent(tags: [Tag(["h", h]), Tag(["encoding", "base64"])], content: "not base64 !!")
        // No encoding tag (legacy NIP-44 format).
        let legacy = try groupEvent(tags: [Tag(["h", h])], content: "AAAA")
        // Two h tags.
        let twoH = try groupEvent(tags: [Tag(["h", h]), Tag(["h", h]), Tag(["encoding", "base64"])], content: "AAAA")
        // Right key, but the plaintext is not an MLSMessage.
        let key = try await alice.client.currentEventKeyForTesting(chat.id)
        let junkPlaintext = try GroupEvent.build(mlsMessage: Data("junk".utf8), nostrGroupID: chat.nostrGroupID, key: key)
        // A gift wrap to Bob whose content is garbage, and a well-formed wrap holding a broken Welcome.
        let wrapSigner = Keys.generate()
        let badWrapSigned = try UnsignedEvent(
            pubkey: wrapSigner.publicKey, kind: .giftWrap, tags: [.pubkey(bob.publicKey)], content: "garbage")
            .signed(with: wrapSigner)
        let mallory = Keys.generate()
        let brokenWelcome = UnsignedEvent(
            pubkey: mallory.publicKey, kind: .welcome,
            tags: [Tag(["relays", url]), Tag(["e", String(repeating: "ab", count: 32)]), Tag(["encoding", "base64"])],
            content: "AAEAAw==")
        let brokenWrap = try GiftWrap.wrap(brokenWelcome, author: mallory, recipient: bob.publicKey)

        let garbage = [noise, notBase64, legacy, twoH, junkPlaintext, badWrapSigned, brokenWrap]
        for event in garbage { #expect(await raw.publish(event).isAccepted, "relay refused \(event.kind)") }
        var dropped: Set<EventID> = []
        for _ in garbage {
            let (id, _) = try await bob.waitForDrop()
            dropped.insert(id)
        }
        #expect(dropped == Set(garbage.map(\.id)))

        // Still working both ways, stored state intact.
        _ = try await alice.client.send(text: "still here", to: chat.id)
        _ = try await bob.waitForMessage("still here")
        _ = try await bob.client.send(text: "me too", to: chat.id)
        _ = try await alice.waitForMessage("me too")
        #expect(try await bob.client.chats().count == 1)

        await raw.disconnect()
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// v1: both members commit in the same epoch; Bob's clock is 10 s behind, inside the
    /// back-dating bound (`V1GroupRules.backdatingBound`), so his commit has the smaller created_at
    /// and wins on both sides (§5.7, MDK 0.8.0): Alice rolls back hers. Beyond the bound a
    /// competitor is refused (`RaceTrustTests`); v2 ignores dates altogether.
    @Test func v1CompetingCommitsWithinTheBoundResolveByDate() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await Self.establish(relay: url, bobClock: { UnsignedEvent.now() - 10 })
        let id = chat.id
        #expect(chat.version == .v1)
        #expect(await alice.epochState(id)?.epoch == 2)

        async let aliceCommit = alice.client.selfUpdate(id)
        async let bobCommit = bob.client.selfUpdate(id)
        let (a, b) = try await (aliceCommit, bobCommit)
        #expect(a.epoch == 3)
        #expect(b.epoch == 3)

        // Alice sees Bob's winning commit and rolls back to it.
        #expect(try await alice.waitForCommit(epoch: 3, by: bob.publicKey) == bob.publicKey)
        try await waitUntil("both agree") {
            let x = await alice.epochState(id), y = await bob.epochState(id)
            return x != nil && x?.epoch == 3 && x?.authenticator == y?.authenticator
        }
        #expect(try await alice.client.snapshotForTesting(id, epoch: 2)?.eventID == b.publish.eventID)
        #expect(try await bob.client.snapshotForTesting(id, epoch: 2)?.eventID == b.publish.eventID)

        _ = try await alice.client.send(text: "after the race", to: id)
        _ = try await bob.waitForMessage("after the race")
        _ = try await bob.client.send(text: "agreed", to: id)
        _ = try await alice.waitForMessage("agreed")

        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    @Test func failedDeliveryIsRetried() async throws {
        let storage = ClientHarness.temporaryDatabasePath("relay")
        var configuration = RelayConfiguration()
        configuration.storage = .file(path: storage)
        let server = RelayServer(configuration: configuration, logger: ClientHarness.logger("relay"))
        let port = try await server.start()
        let url = "ws://127.0.0.1:\(port)"
        let (alice, bob, chat, _) = try await Self.establish(relay: url)

        await server.stop()
        let failed = try await alice.client.send(text: "while offline", to: chat.id)
        #expect(failed.message.deliveryState == .failed)
        #expect(!failed.publish.isSent)
        await #expect(throws: MarmotClientError.self) { _ = try await alice.client.selfUpdate(chat.id) }
        #expect(await alice.epochState(chat.id)?.epoch == 2)

        configuration.port = port
        let again = RelayServer(configuration: configuration, logger: ClientHarness.logger("relay"))
        _ = try await again.start()
        let retried = try await alice.client.retry(failed.id, in: chat.id)
        #expect(retried.message.deliveryState == .sent)
        #expect(retried.message.outerEventID == failed.message.outerEventID)
        _ = try await bob.waitForMessage("while offline", timeout: 20)
        await #expect(throws: MarmotClientError.self) { _ = try await alice.client.retry(failed.id, in: chat.id) }
        #expect(try await alice.allMessages(chat.id).map(\.deliveryState) == [.sent])

        await alice.shutdown()
        await bob.shutdown()
        await again.stop()
    }

    @Test func createChatWithoutKeyPackageFails() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let alice = try await TestAccount("alice", relayURLs: [url])
        await #expect(throws: MarmotClientError.self) { _ = try await alice.client.createChat(with: Keys.generate().publicKey) }
        await #expect(throws: MarmotClientError.self) { _ = try await alice.client.createChat(with: alice.publicKey) }
        #expect(try await alice.client.chats().isEmpty)
        await alice.shutdown()
        await server.stop()
    }
}

/// Polls `condition` until true (at most `timeout` seconds).
func waitUntil(_ what: String, timeout: Double = 30, _ condition: @escaping @Sendable () async -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw HarnessError.timeout(what)
}

extension MarmotClient {
    func currentEventKeyForTesting(_ id: GroupID) throws -> GroupEventKey {
        try session(id).currentEventKey()
    }
}

/// Delivery order the relay cannot guarantee.
@Suite(.serialized, .timeLimit(.minutes(2))) struct OutOfOrderTests {
    /// A message of epoch 3 reaches Bob before the commit that starts epoch 3 (what a relay's
    /// same-second ordering can do to an offline member, interop README gotcha 9): it is parked and
    /// opened once the commit is applied.
    @Test func messageBeforeItsCommitIsRecovered() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url)
        await bob.shutdown()

        let commit = try await alice.client.selfUpdate(chat.id)
        let sent = try await alice.client.send(text: "epoch 3 message", to: chat.id)
        let raw = try await ClientHarness.rawClient(url)
        let stored = try await withTimeout(60, "fetch") {
            var events: [EventID: Event] = [:]
            for await message in await raw.subscribe([Filter(kinds: [.groupMessage])]) {
                if case .event(let event) = message { events[event.id] = event }
                if message == .endOfStoredEvents { break }
            }
            return events
        }
        let commitEvent = try #require(stored[commit.publish.eventID])
        let messageID = try #require(sent.message.outerEventID)
        let messageEvent = try #require(stored[messageID])

        // Bob comes back on a relay where nothing is stored; the events arrive in the wrong order.
        let (empty, emptyURL) = try await ClientHarness.startRelay()
        let offline = try await TestAccount("bob", keys: bob.keys, databasePath: bob.databasePath, relayURLs: [emptyURL])
        await offline.client.deliverForTesting(messageEvent)
        let (dropped, reason) = try await offline.waitForDrop()
        #expect(dropped == messageEvent.id)
        #expect(reason == .undecryptable)
        await offline.client.deliverForTesting(commitEvent)
        #expect(try await offline.waitForCommit(epoch: 3, by: alice.publicKey) == alice.publicKey)
        let recovered = try await offline.waitForMessage("epoch 3 message")
        #expect(recovered.rumorID == sent.id)

        await raw.disconnect()
        await offline.shutdown()
        await alice.shutdown()
        await empty.stop()
        await server.stop()
    }
}
