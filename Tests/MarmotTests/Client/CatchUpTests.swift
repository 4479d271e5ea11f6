import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// `caughtUp()`: the exact "stored events handled" signal the app's sync status is built on.
@Suite(.serialized, .timeLimit(.minutes(2))) struct CatchUpTests {
    /// An invitation sent while Bob was away is known by the time `caughtUp()` returns after his
    /// restart, and a second call returns at once.
    @Test func invitationSentWhileAwayIsKnownOnceCaughtUp() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let alice = try await TestAccount("alice", relayURLs: [url])
        // The relay's EOSE ends Bob's catch-up here, not the fallback timer (3 s in the harness,
        // which a loaded CI machine can exceed before the relay has answered).
        var options = ClientHarness.options
        options.catchUpTimeout = .seconds(60)
        let bob = try await TestAccount("bob", relayURLs: [url], options: options)
        _ = try await bob.client.ensureKeyPackage()
        await bob.shutdown()
        _ = try await alice.client.createChat(with: bob.publicKey)

        let back = try await bob.restarted()
        await back.client.caughtUp()
        #expect(await back.client.invites().count == 1)
        let started = ContinuousClock.now
        await back.client.caughtUp()
        // Returns without a new catch-up (whose timer is 60 s here); a busy machine may delay the hop.
        #expect(ContinuousClock.now - started < .seconds(5))
        await back.shutdown()
        await alice.shutdown()
        await server.stop()
    }

    /// The client's events are a lossless pipe (architecture review §3.3-d): more than the 10,000
    /// it used to buffer, emitted while nobody reads, all arrive in order. It fails with the old
    /// `bufferingNewest(10_000)`, which dropped the oldest.
    @Test func eventsEmittedWhileNobodyReadsAreAllKept() async throws {
        let keys = Keys.generate()
        let store = try GRDBMarmotStore.inMemory(key: StorageKey(deriving: keys.secretKey, installationSecret: ClientHarness.installationSecret))
        let client = MarmotClient(keys: keys, store: store, pool: RelayPool(relays: []), relays: [])
        let count = 12_000
        for index in 0..<count { await client.emit(.failure(chat: nil, reason: "\(index)")) }
        var seen: [String] = []
        for await event in client.events {
            guard case .failure(nil, let reason) = event else { continue }
            seen.append(reason)
            if seen.count == count { break }
        }
        #expect(seen == (0..<count).map { "\($0)" })
    }
}
