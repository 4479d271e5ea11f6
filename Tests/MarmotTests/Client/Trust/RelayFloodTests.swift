import Foundation
import GRDB
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// A relay that serves a group floods a member with large junk kind-445 events (surface review
/// 2026-12-01, N2: 30 × 4 MB took `marmot listen` to 1.44 GB and the data folder to 628 MB).
@Suite(.serialized, .timeLimit(.minutes(4))) struct RelayFloodTests {
    /// The group's relay holds 100 junk events of 120 KiB (under the kind-445 bound: they are
    /// verified, do not decrypt and are parked) and 10 of 300 KiB (over it: dropped before their
    /// signature is checked), signed by throw-away keys with the group's `h`, then Alice's real
    /// message. Bob's catch-up takes them all: his parked events stay within their byte budget, as
    /// rows of their own, his store grows by a bounded amount, and Alice's message arrives. Before,
    /// all 100 were parked (12 MB, rewritten as one record) and the large ones verified and kept.
    @Test func largeJunkFromTheGroupsRelayStaysBounded() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, first, chat) = try await ReaddTests.pair(.v2, relay: url)
        let h = try #require(try await alice.client.chat(chat)).nostrGroupID.hex
        await first.shutdown()
        let before = Self.storeBytes(first.databasePath)
        let rssBefore = Self.residentMegabytes()

        let raw = try await ClientHarness.rawClient(url)
        for index in 0..<110 {
            let junk = try Self.junk(h: h, bytes: index < 100 ? 120 * 1024 : 300 * 1024)
            #expect(await raw.publish(junk).isAccepted, "junk \(index)")
        }
        await raw.disconnect()
        _ = try await alice.client.send(text: "after the flood", to: chat)

        let bob = try await first.restarted()
        #expect(try await bob.waitForMessage("after the flood", timeout: 90).sender == alice.publicKey)
        let limit = ClientHarness.options.parkedEventBytes
        let parked = await bob.client.parkedCountForTesting(chat)
        #expect(parked > 0 && parked <= limit / (120 * 1024), "\(parked) parked")
        let rows = try bob.store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM parked_events_v2") ?? -1 }
        #expect(rows == parked, "one row per parked event")
        #expect(try bob.store.setting(ClientSettings.parked(chat)) == nil, "no settings record")
        await bob.shutdown()
        let after = Self.storeBytes(first.databasePath)
        let rssAfter = Self.residentMegabytes()
        print("relay flood: 100 × 120 KiB + 10 × 300 KiB junk; \(parked) parked; store \(before) → \(after) bytes; resident memory \(rssBefore) → \(rssAfter) MB")
        // The junk is 12 MB parkable plus 3 MB over the bound; what is kept is at most 2 MiB,
        // sealed, plus the WAL's pages.
        #expect(after - before < 10 << 20)
        await alice.shutdown()
        await server.stop()
    }

    /// A junk kind-445 event with `bytes` of random base64 content, signed by a throw-away key.
    static func junk(h: String, bytes: Int) throws -> Event {
        let stranger = Keys.generate()
        let raw = Data((0..<(bytes * 3 / 4)).map { _ in UInt8.random(in: 0...255) })
        return try UnsignedEvent(
            pubkey: stranger.publicKey, createdAt: UnsignedEvent.now(), kind: .groupMessage, tags: [Tag(["h", h])],
            content: raw.base64EncodedString()
        ).signed(with: stranger)
    }

    /// This process's resident set in MB (Linux `/proc/self/statm`; 0 elsewhere).
    static func residentMegabytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = Int(text.split(separator: " ").dropFirst().first ?? "0") ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }

    /// The bytes of a store's files (the database, its WAL and shared memory).
    static func storeBytes(_ path: String) -> Int {
        [path, path + "-wal", path + "-shm"].reduce(0) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
        }
    }
}
