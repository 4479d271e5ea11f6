import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Peers whose relays do not overlap find each other through their relay lists.
@Suite(.serialized, .timeLimit(.minutes(2))) struct RoutingTests {
    /// Alice uses relays A and B; Bob uses only C, and his lists (10002/10050/10051, naming C) are
    /// also on A. Alice finds his key package on C, delivers the Welcome to his inbox C; Bob joins
    /// the group's relays (A, B) and they talk both ways.
    @Test func peersOnDisjointRelaysFindEachOtherThroughRelayLists() async throws {
        let (a, urlA) = try await ClientHarness.startRelay()
        let (b, urlB) = try await ClientHarness.startRelay()
        let (c, urlC) = try await ClientHarness.startRelay()
        let alice = try await TestAccount("alice", relayURLs: [urlA, urlB])
        let bob = try await TestAccount("bob", relayURLs: [urlC])
        _ = try await bob.client.ensureKeyPackage()
        #expect(await bob.client.publishRelayLists())
        let lists = try await RelayReads.fetch(
            Filter(authors: [bob.publicKey], kinds: [.relayList, .dmRelays, .keyPackageRelays]), from: urlC)
        #expect(lists.count == 3)
        for event in lists { #expect(try await RelayReads.publish(event, to: urlA).isAccepted) }
        #expect(try await RelayReads.fetch(Filter(authors: [bob.publicKey], kinds: [.addressableKeyPackage]), from: urlA).isEmpty)

        let created = try await alice.client.createChat(with: bob.publicKey)
        #expect(created.welcome?.accepted.contains(urlC) == true)
        let (chat, inviter) = try await bob.waitForWelcome()
        #expect(inviter == alice.publicKey)
        #expect(Set(await bob.pool.relays) == [urlA, urlB, urlC])
        _ = try await alice.waitForCommit(epoch: 2, by: bob.publicKey)
        _ = try await alice.client.send(text: "found you", to: chat.id)
        _ = try await bob.waitForMessage("found you")
        _ = try await bob.client.send(text: "through the lists", to: chat.id)
        _ = try await alice.waitForMessage("through the lists")
        await alice.shutdown()
        await bob.shutdown()
        await a.stop()
        await b.stop()
        await c.stop()
    }

    /// Relay list parsing: markers, the newest event of each kind, bad URLs skipped.
    @Test func relayListsReadMarkersAndTheNewestEvent() throws {
        let keys = Keys.generate()
        let old = try UnsignedEvent(pubkey: keys.publicKey, createdAt: 10, kind: .relayList,
                                    tags: [Tag(["r", "wss://old.example"])], content: "").signed(with: keys)
        let new = try UnsignedEvent(pubkey: keys.publicKey, createdAt: 20, kind: .relayList, tags: [
            Tag(["r", "wss://both.example"]), Tag(["r", "wss://in.example", "read"]), Tag(["r", "wss://out.example", "write"]),
            Tag(["r", "not a url"]),
        ], content: "").signed(with: keys)
        let inbox = try UnsignedEvent(pubkey: keys.publicKey, createdAt: 5, kind: .dmRelays,
                                      tags: [Tag(["relay", "wss://inbox.example"])], content: "").signed(with: keys)
        let lists = RelayLists(events: [old, new, inbox], author: keys.publicKey)
        #expect(lists.read.map(\.string) == ["wss://both.example", "wss://in.example"])
        #expect(lists.write.map(\.string) == ["wss://both.example", "wss://out.example"])
        #expect(lists.welcomeDelivery.map(\.string) == ["wss://inbox.example"])
        #expect(lists.keyPackageLookup.map(\.string) == ["wss://both.example", "wss://out.example"])
        #expect(RelayLists(events: [new], author: Keys.generate().publicKey) == RelayLists())
    }
}
