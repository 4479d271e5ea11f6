import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// MIP-00 key package lifecycle: one visible key package per device, rotated after use.
@Suite(.serialized, .timeLimit(.minutes(2))) struct KeyPackageLifecycleTests {
    /// Starting three times leaves one private record and one visible key package (before, every
    /// start made and kept a new one, and their legacy events piled up on the relays).
    @Test func threeRestartsLeaveOneKeyPackage() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var bob = try await TestAccount("bob", relayURLs: [url])
        guard case .published(let first) = try await bob.client.ensureKeyPackage() else {
            throw HarnessError.unexpected("the first start must publish")
        }
        #expect(first.isPublished)
        for _ in 0..<3 {
            bob = try await bob.restarted()
            let upkeep = try await bob.client.ensureKeyPackage()
            #expect(upkeep == .visible(first.ref))
        }
        #expect(try bob.store.keyPackages().count == 1)
        // v1 goes out as kind 443 only beside v2 (`publishesAddressableV1`): one such event is left.
        let events = try await RelayReads.fetch(Filter(authors: [bob.publicKey], kinds: [.keyPackage]), from: url)
        #expect(events.count == 1)
        await bob.shutdown()
        await server.stop()
    }

    /// A key package the relays lost is published again, the same one, under the same `d` tag.
    @Test func missingKeyPackageIsPublishedAgain() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        guard case .published(let first) = try await bob.client.ensureKeyPackage() else {
            throw HarnessError.unexpected("the first start must publish")
        }
        await bob.shutdown()
        await server.stop()
        let (fresh, freshURL) = try await ClientHarness.startRelay()
        let moved = try await TestAccount("bob", keys: bob.keys, databasePath: bob.databasePath, relayURLs: [freshURL])
        guard case .republished(let again) = try await moved.client.ensureKeyPackage() else {
            throw HarnessError.unexpected("an empty relay must get the key package again")
        }
        #expect(again.ref == first.ref)
        #expect(again.dTag == first.dTag)
        #expect(try await RelayReads.keyPackage(of: moved.publicKey, on: freshURL).keyPackage.reference() == first.ref)
        await moved.shutdown()
        await fresh.stop()
    }

    /// A Welcome consumes Bob's key package: a fresh one replaces it on the relay, the consumed
    /// one's event (kind 443) gets a NIP-09 deletion, and its private half is forgotten
    /// once the grace period is over.
    @Test func consumedKeyPackageIsReplacedAndDeleted() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let clock = TestClock()
        let alice = try await TestAccount("alice", relayURLs: [url])
        let bob = try await TestAccount("bob", relayURLs: [url], clock: { clock.now })
        guard case .published(let first) = try await bob.client.ensureKeyPackage() else {
            throw HarnessError.unexpected("the first start must publish")
        }
        _ = try await alice.client.createChat(with: bob.publicKey)
        _ = try await bob.waitForInvite()
        let rotated = try await waitUntilValue("rotated key package") {
            let package = try? await RelayReads.keyPackage(of: bob.publicKey, on: url)
            return package.flatMap { $0.keyPackage.reference() != first.ref ? $0 : nil }
        }
        #expect(rotated.kind == .keyPackage)  // v1 beside v2: kind 443 alone, never replaced by relays
        // The deletion is published right after the new key package: wait for it too.
        let legacyID = first.event.eventID.hex
        let deleted = try await waitUntilValue("deletion of the consumed key package") {
            let deletions = (try? await RelayReads.fetch(Filter(authors: [bob.publicKey], kinds: [.deletion]), from: url)) ?? []
            let ids = Set(deletions.flatMap { $0.tags.filter { $0.name == "e" }.compactMap(\.value) })
            return ids.contains(legacyID) ? ids : nil
        }
        #expect(deleted.contains(legacyID))
        #expect(try bob.store.keyPackages().count == 2)

        clock.advance(by: 2 * 24 * 3600)
        #expect(try await bob.client.ensureKeyPackage() == .visible(rotated.keyPackage.reference()))
        #expect(try bob.store.keyPackages().map(\.ref) == [rotated.keyPackage.reference()])
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }
}

/// A settable Unix clock for tests.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var offset: Int64 = 0
    var now: Int64 { lock.withLock { UnsignedEvent.now() + offset } }
    func advance(by seconds: Int64) { lock.withLock { offset += seconds } }
}

/// Polls `body` until it returns a value (30 s: generous for a loaded CI machine).
func waitUntilValue<T: Sendable>(_ what: String, _ body: @Sendable () async -> T?) async throws -> T {
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
        if let value = await body() { return value }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw HarnessError.timeout(what)
}

/// Keys rotate even where nobody commits (MDK's `groups_needing_self_update`).
@Suite(.serialized, .timeLimit(.minutes(2))) struct PeriodicSelfUpdateTests {
    /// Alice made the chat longer ago than her rotation interval (two minutes here, a week by
    /// default) and never committed since: at her next start, after the catch-up, she rotates her
    /// leaf, and Bob follows.
    @Test func staleGroupRotatesOurLeafAtStart() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let clock = TestClock()
        clock.advance(by: -180)
        var options = ClientHarness.options
        options.selfUpdateInterval = 120
        var (alice, bob, chat, _) = try await TwoClientTests.establish(
            relay: url, aliceClock: { clock.now }, aliceOptions: options)
        clock.advance(by: 180)
        alice = try await alice.restarted()
        #expect(try await bob.waitForCommit(epoch: 3, by: alice.publicKey) == alice.publicKey)
        #expect(try await alice.waitForCommit(epoch: 3, by: alice.publicKey) == alice.publicKey)
        // Rotated now: the next start does not rotate again.
        alice = try await alice.restarted()
        try await Task.sleep(for: .seconds(4))
        #expect(await alice.epochState(chat.id)?.epoch == 3)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }
}
