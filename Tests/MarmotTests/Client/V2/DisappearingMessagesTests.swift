import Foundation
import GRDB
import MLS
import Nostr
import NostrClient
import TestSupport
import Testing
@testable import Marmot

/// Disappearing messages (v2 component 0x8005), as White Noise sets them: an admin turns retention
/// on, messages carry the NIP-40 `expiration` on their envelope, and at expiry both sides delete
/// them from the store, leaving nothing of them in the database file or its log.
@Suite(.serialized, .timeLimit(.minutes(3))) struct DisappearingMessagesTests {
    /// The raw bytes of every file of a store (the database and its write-ahead log).
    private static func storeBytes(_ path: String) -> Data {
        [path, path + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }.reduce(Data(), +)
    }

    @Test func retentionDeletesMessagesAtExpiryFromEveryStoreFile() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, id) = try await V2Fixtures.oneToOne(url)
        _ = try await alice.client.send(text: "kept", to: id)
        _ = try await bob.waitForMessage("kept")

        _ = try await alice.client.updateGroupData(id, retention: 25)
        _ = try await bob.waitForCommit(epoch: 3, by: alice.publicKey)
        #expect(try await bob.client.chat(id)?.retention == 25)
        let line = try #require(try await bob.allMessages(id).last { $0.deliveryState == .notice })
        #expect(SystemNotice(content: line.content)?.change == .retentionChanged)

        let sent = try await alice.client.send(text: "this will vanish", to: id)
        let received = try await bob.waitForMessage("this will vanish")
        #expect(received.expiresAt == received.createdAt + 25)
        let envelope = try #require(try await RelayReads.fetch(Filter(ids: [sent.publish.eventID]), from: url).first)
        #expect(envelope.tags.first { $0.name == "expiration" }?.value == String(received.createdAt + 25))
        // The sealed record as Bob's database holds it, to look for in his files afterwards (25 s of
        // retention leave a loaded machine time to read it before it expires).
        let sealed = try await DatabaseQueue(path: bob.databasePath).read { db in
            try Data.fetchOne(db, sql: "SELECT sealed_record FROM messages_v2 WHERE expires_at IS NOT NULL")
        }
        let sealedRecord = try #require(sealed)
        #expect(Self.storeBytes(bob.databasePath).range(of: sealedRecord.prefix(48)) != nil)

        for account in [alice, bob] {
            let event = await account.inbox.first(timeout: 90) {
                if case .messagesExpired(_, let ids) = $0 { ids == [received.rumorID] } else { false }
            }
            #expect(event != nil, "\(account.name): no expiry reported")
            #expect(try account.store.message(mlsGroupID: id, rumorID: received.rumorID) == nil)
        }
        #expect(try bob.store.message(mlsGroupID: id, rumorID: try #require(try await bob.allMessages(id).first { $0.content == "kept" }).rumorID) != nil)
        #expect(Self.storeBytes(bob.databasePath).range(of: sealedRecord.prefix(48)) == nil)

        // Off again: new messages stay.
        _ = try await alice.client.updateGroupData(id, retention: 0)
        _ = try await bob.waitForCommit(epoch: 4, by: alice.publicKey)
        _ = try await alice.client.send(text: "stays", to: id)
        #expect(try await bob.waitForMessage("stays").expiresAt == nil)
        #expect(try await bob.client.chat(id)?.retention == 0)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// A message that was sent under retention and reaches a member after its expiry (a member
    /// back from a long absence) is never stored.
    @Test func messageArrivingAfterItsExpiryIsNotKept() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, id) = try await V2Fixtures.oneToOne(url)
        _ = try await alice.client.updateGroupData(id, retention: 60)
        _ = try await bob.waitForCommit(epoch: 3, by: alice.publicKey)
        await bob.shutdown()
        _ = try await alice.client.send(text: "gone before you came back", to: id)
        _ = try await alice.client.send(text: "sent after the change", to: id)
        let back = try await TestAccount(
            "bob", keys: bob.keys, databasePath: bob.databasePath, relayURLs: [url], clock: { UnsignedEvent.now() + 120 })
        try await Task.sleep(for: .seconds(3))
        let contents = try await back.allMessages(id).map(\.content)
        #expect(!contents.contains("gone before you came back"))
        #expect(!contents.contains("sent after the change"))
        #expect(await back.epochState(id)?.epoch == 3)
        await alice.shutdown()
        await back.shutdown()
        await server.stop()
    }

    /// v1 groups have no retention: asking for it is refused, nothing is committed.
    @Test func v1ChatRefusesRetention() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let alice = try await TestAccount("alice", relayURLs: [url])
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage(version: .v1)
        let chat = try await alice.client.createChat(with: bob.publicKey).chat
        #expect(chat.version == .v1)
        let refusal = await #expect(throws: MarmotClientError.self) {
            _ = try await alice.client.updateGroupData(chat.id, retention: 60)
        }
        #expect(refusal?.description.contains(GroupChangeError.unsupportedInV1("disappearing messages").description) == true)
        #expect(await alice.epochState(chat.id)?.epoch == 1)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }
}
