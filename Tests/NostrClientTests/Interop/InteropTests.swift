import Foundation
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing

/// Our client against rust-nostr's relay, and rust-nostr's client (nostr-sdk) against our relay,
/// with the kinds Marmot uses: 1, 443, 1059, 445.
@Suite(.serialized, .timeLimit(.minutes(2))) struct InteropTests {
    static let kinds: [Kind] = [.textNote, .keyPackage, .giftWrap, .groupMessage]

    /// One event of each kind, as Marmot would publish them.
    static func marmotEvents(author: Keys, recipient: PublicKey, group: String) throws -> [Event] {
        let now = UnsignedEvent.now()
        let note = try UnsignedEvent(pubkey: author.publicKey, createdAt: now, kind: .textNote, content: "hello from Swift")
            .signed(with: author)
        let keyPackage = try UnsignedEvent(
            pubkey: author.publicKey, createdAt: now, kind: .keyPackage,
            tags: [Tag(["mls_protocol_version", "1.0"]), Tag(["mls_ciphersuite", "0x0001"]), Tag(["encoding", "base64"])],
            content: "AAEAAQ==").signed(with: author)
        let rumor = UnsignedEvent(pubkey: author.publicKey, createdAt: now, kind: .welcome, content: "welcome")
        let wrap = try GiftWrap.wrap(rumor, author: author, recipient: recipient)
        // Group messages are signed by a throwaway key (MIP-03).
        let throwaway = Keys.generate()
        let message = try UnsignedEvent(pubkey: throwaway.publicKey, createdAt: now, kind: .groupMessage,
                                        tags: [Tag(["h", group]), Tag(["encoding", "base64"])], content: "Y2lwaGVy")
            .signed(with: throwaway)
        return [note, keyPackage, wrap, message]
    }

    static func connected(_ url: String) async throws -> RelayClient {
        let client = RelayClient(url: url, logger: testLogger("client"))
        await client.connect()
        _ = try await withTimeout(60, "connect to \(url)") {
            for await status in await client.statusUpdates() where status == .connected { return true }
            return false
        }
        return client
    }

    /// Collects events from `subscription` until every id in `wanted` arrived; returns them by id.
    static func collect(_ subscription: RelaySubscription, _ wanted: Set<EventID>, timeout: Double = 15) async throws -> [EventID: Event] {
        try await withTimeout(timeout, "receive \(wanted.count) events") {
            var got: [EventID: Event] = [:]
            for await message in subscription {
                if case .event(let event) = message, wanted.contains(event.id) { got[event.id] = event }
                if case .closed(let reason) = message { throw InteropTestError.closed(reason) }
                if Set(got.keys) == wanted { break }
            }
            return got
        }
    }

    @Test(.enabled(if: InteropKit.shouldRun, "interop kit (shared/interop + venv) not found"))
    func ourClientAgainstRustNostrRelay() async throws {
        try InteropKit.require()
        let (relay, url) = try await InteropKit.startRustRelay()
        do {
            let receiverKeys = Keys.generate()
            let subscriber = try await Self.connected(url)
            let publisher = try await Self.connected(url)
            let live = await subscriber.subscribe([Filter(kinds: Self.kinds)])

            // Swift → rust relay → Swift, live.
            let ours = try Self.marmotEvents(author: Keys.generate(), recipient: receiverKeys.publicKey,
                                             group: String(repeating: "5a", count: 32))
            for event in ours {
                let result = await publisher.publish(event)
                #expect(result.isAccepted, "kind \(event.kind): \(result)")
            }
            let received = try await Self.collect(live, Set(ours.map(\.id)))
            #expect(received.count == ours.count)

            // nostr-sdk → rust relay → Swift (a real NIP-59 wrap to our key, which we open).
            let peer = try InteropKit.peer(["publish", url, "--recipient", receiverKeys.publicKey.hex])
            var theirs: [EventID] = []
            while let line = await peer.nextJSON(timeout: 20), line["done"] == nil {
                #expect(line["accepted"] as? Bool == true, "\(line)")
                if let hex = line["id"] as? String { theirs.append(try EventID(hex: hex)) }
            }
            #expect(await peer.exitStatus() == 0)
            #expect(theirs.count == 4)
            let fromPeer = try await Self.collect(live, Set(theirs))
            let wrap = try #require(fromPeer.values.first { $0.kind == .giftWrap })
            let opened = try GiftWrap.unwrap(wrap, recipient: receiverKeys.secretKey)
            #expect(opened.rumor.content == "rumor")

            // Stored: a new subscription gets all eight before EOSE, gift wraps despite back-dating.
            let stored = try await withTimeout(60, "stored") {
                var ids: Set<EventID> = []
                for await message in await subscriber.subscribe([Filter(kinds: Self.kinds)]) {
                    if case .event(let event) = message { ids.insert(event.id) }
                    if message == .endOfStoredEvents { break }
                }
                return ids
            }
            #expect(Set(ours.map(\.id) + theirs).isSubset(of: stored))
            await subscriber.disconnect()
            await publisher.disconnect()
        } catch {
            await relay.stop()
            throw error
        }
        await relay.stop()
        #expect(!relay.isRunning)
    }

    @Test(.enabled(if: InteropKit.shouldRun, "interop kit (shared/interop + venv) not found"))
    func nostrSDKClientAgainstOurRelay() async throws {
        try InteropKit.require()
        let server = RelayServer(logger: testLogger("relay"))
        let port = try await server.start()
        let url = "ws://127.0.0.1:\(port)"
        var peers: [ChildProcess] = []
        do {
            // Swift → our relay → nostr-sdk (live: the peer subscribes first).
            let receiverKeys = Keys.generate()
            let ours = try Self.marmotEvents(author: Keys.generate(), recipient: receiverKeys.publicKey,
                                             group: String(repeating: "6b", count: 32))
            let receiver = try InteropKit.peer(["receive", url, "--ids", ours.map(\.id.hex).joined(separator: ","), "--timeout", "20"])
            peers.append(receiver)
            let ready = await receiver.nextJSON(timeout: 20)
            #expect(ready?["ready"] as? Bool == true, "peer not ready: \(String(describing: ready))")
            let publisher = try await Self.connected(url)
            for event in ours {
                let result = await publisher.publish(event)
                #expect(result == .accepted(message: ""), "kind \(event.kind): \(result)")
            }
            var seenByPeer: Set<String> = []
            while let line = await receiver.nextJSON(timeout: 25) {
                if let missing = line["missing"] as? [String] {
                    #expect(missing.isEmpty, "nostr-sdk did not receive \(missing)")
                    break
                }
                #expect(line["valid"] as? Bool == true)
                if let id = line["id"] as? String { seenByPeer.insert(id) }
            }
            #expect(seenByPeer == Set(ours.map(\.id.hex)))
            #expect(await receiver.exitStatus() == 0)

            // nostr-sdk → our relay → Swift.
            let subscriber = try await Self.connected(url)
            let live = await subscriber.subscribe([Filter(kinds: Self.kinds)])
            let sender = try InteropKit.peer(["publish", url, "--recipient", receiverKeys.publicKey.hex])
            peers.append(sender)
            var theirs: [EventID] = []
            while let line = await sender.nextJSON(timeout: 20), line["done"] == nil {
                #expect(line["accepted"] as? Bool == true, "our relay refused: \(line)")
                if let hex = line["id"] as? String { theirs.append(try EventID(hex: hex)) }
            }
            #expect(await sender.exitStatus() == 0)
            let received = try await Self.collect(live, Set(theirs))
            #expect(Set(received.values.map(\.kind)) == Set(Self.kinds))
            let wrap = try #require(received.values.first { $0.kind == .giftWrap })
            #expect(try GiftWrap.unwrap(wrap, recipient: receiverKeys.secretKey).rumor.content == "rumor")
            await subscriber.disconnect()
            await publisher.disconnect()
        } catch {
            for peer in peers { await peer.stop() }
            await server.stop()
            throw error
        }
        for peer in peers { await peer.stop() }
        await server.stop()
    }
}

enum InteropTestError: Error {
    case closed(String)
}
