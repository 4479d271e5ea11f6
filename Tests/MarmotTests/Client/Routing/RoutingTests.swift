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
    /// also on A. Alice finds his key package on C, delivers the Welcome to his inbox C and names
    /// A, B and C as the group's relays; Bob joins them and they talk both ways.
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
        #expect(Set(created.chat.relays.map(\.string)) == [urlA, urlB, urlC])
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

    /// Bob is on C only and publishes no relay list anywhere; Alice (on A) has his nprofile naming C.
    /// The hint is enough: his key package is found on C, C becomes one of the chat's relays, the
    /// Welcome reaches him there, and they talk.
    @Test func nprofileRelayHintFindsAPeerWithoutRelayLists() async throws {
        let (a, urlA) = try await ClientHarness.startRelay()
        let (c, urlC) = try await ClientHarness.startRelay()
        let alice = try await TestAccount("alice", relayURLs: [urlA])
        let bob = try await TestAccount("bob", relayURLs: [urlC])
        _ = try await bob.client.ensureKeyPackages()
        await #expect(throws: MarmotClientError.self) { _ = try await alice.client.createChat(with: bob.publicKey) }

        let created = try await alice.client.createChat(with: bob.publicKey, relayHints: [try RelayURL(urlC)])
        #expect(Set(created.chat.relays.map(\.string)) == [urlA, urlC])
        #expect(created.welcome?.accepted.contains(urlC) == true)
        let (chat, _) = try await bob.waitForWelcome()
        _ = try await alice.client.send(text: "found by the hint", to: chat.id)
        _ = try await bob.waitForMessage("found by the hint")
        _ = try await bob.client.send(text: "hello from C", to: chat.id)
        _ = try await alice.waitForMessage("hello from C")
        await alice.shutdown()
        await bob.shutdown()
        await a.stop()
        await c.stop()
    }

    /// A group: Alice on {A, B} invites Bob on {C} and Carol on {D}, whose lists are on A. The
    /// group names A, B, C and D; each Welcome reaches its invitee's inbox; everyone reads everyone.
    @Test func groupWithInviteesOnDisjointRelaysNamesTheirRelays() async throws {
        let (a, urlA) = try await ClientHarness.startRelay()
        let (b, urlB) = try await ClientHarness.startRelay()
        let (c, urlC) = try await ClientHarness.startRelay()
        let (d, urlD) = try await ClientHarness.startRelay()
        let alice = try await TestAccount("alice", relayURLs: [urlA, urlB])
        let bob = try await TestAccount("bob", relayURLs: [urlC])
        let carol = try await TestAccount("carol", relayURLs: [urlD])
        for (invitee, home) in [(bob, urlC), (carol, urlD)] {
            _ = try await invitee.client.ensureKeyPackage()
            #expect(await invitee.client.publishRelayLists())
            let lists = try await RelayReads.fetch(
                Filter(authors: [invitee.publicKey], kinds: [.relayList, .dmRelays, .keyPackageRelays]), from: home)
            for event in lists { #expect(try await RelayReads.publish(event, to: urlA).isAccepted) }
        }

        let created = try await alice.client.createGroup(name: "disjoint", members: [bob.publicKey, carol.publicKey])
        #expect(Set(created.chat.relays.map(\.string)) == [urlA, urlB, urlC, urlD])
        #expect(created.welcomes[bob.publicKey]?.accepted.contains(urlC) == true)
        #expect(created.welcomes[carol.publicKey]?.accepted.contains(urlD) == true)
        let (chat, _) = try await bob.waitForWelcome()
        #expect(Set(await bob.pool.relays) == [urlA, urlB, urlC, urlD])
        // Each joiner's self-update, in whatever order they land.
        _ = try await alice.waitForCommit(epoch: 2)
        _ = try await carol.waitForWelcome()
        _ = try await alice.waitForCommit(epoch: 3)
        _ = try await bob.waitForCommit(epoch: 3)
        _ = try await alice.client.send(text: "hello both", to: chat.id)
        _ = try await bob.waitForMessage("hello both")
        _ = try await carol.waitForMessage("hello both")
        _ = try await carol.client.send(text: "carol here", to: chat.id)
        _ = try await alice.waitForMessage("carol here")
        _ = try await bob.waitForMessage("carol here")
        for account in [alice, bob, carol] { await account.shutdown() }
        for relay in [a, b, c, d] { await relay.stop() }
    }

    /// Adding a member keeps the group's relays (no group-data commit) but delivers the Welcome to
    /// the new member's inbox: Carol on {D} only, her lists on A, is added to Alice's group on
    /// {A, B}; she gets the Welcome on D, follows the group's relays and talks with everyone.
    @Test func addedMemberOnADisjointRelayGetsTheWelcomeInItsInbox() async throws {
        let (a, urlA) = try await ClientHarness.startRelay()
        let (b, urlB) = try await ClientHarness.startRelay()
        let (d, urlD) = try await ClientHarness.startRelay()
        let alice = try await TestAccount("alice", relayURLs: [urlA, urlB])
        let bob = try await TestAccount("bob", relayURLs: [urlA])
        let carol = try await TestAccount("carol", relayURLs: [urlD])
        _ = try await bob.client.publishKeyPackage()
        let created = try await alice.client.createGroup(name: "grow", members: [bob.publicKey])
        #expect(Set(created.chat.relays.map(\.string)) == [urlA, urlB])
        let (chat, _) = try await bob.waitForWelcome()
        _ = try await alice.waitForCommit(epoch: 2)

        _ = try await carol.client.ensureKeyPackage()
        #expect(await carol.client.publishRelayLists())
        let lists = try await RelayReads.fetch(
            Filter(authors: [carol.publicKey], kinds: [.relayList, .dmRelays, .keyPackageRelays]), from: urlD)
        for event in lists { #expect(try await RelayReads.publish(event, to: urlA).isAccepted) }
        let added = try await alice.client.addMembers([carol.publicKey], to: chat.id)
        #expect(added.welcomes[carol.publicKey]?.accepted.contains(urlD) == true)
        #expect(Set(try #require(try await alice.client.chat(chat.id)).relays.map(\.string)) == [urlA, urlB])
        _ = try await bob.waitForCommit(epoch: 3)
        _ = try await carol.waitForWelcome()
        #expect(Set(await carol.pool.relays) == [urlA, urlB, urlD])
        _ = try await alice.waitForCommit(epoch: 4, by: carol.publicKey)
        _ = try await bob.waitForCommit(epoch: 4, by: carol.publicKey)
        _ = try await alice.client.send(text: "welcome carol", to: chat.id)
        _ = try await carol.waitForMessage("welcome carol")
        _ = try await carol.client.send(text: "thanks", to: chat.id)
        _ = try await bob.waitForMessage("thanks")
        for account in [alice, bob, carol] { await account.shutdown() }
        for relay in [a, b, d] { await relay.stop() }
    }

    /// A new group's relays: ours, then the invitees', de-duplicated; under the cap every invitee
    /// with no relay in common keeps one of its own, and our first relay always stays.
    @Test func newGroupRelaysAreOursPlusTheInviteesCappedSoEachInviteeKeepsOne() throws {
        func urls(_ names: String...) throws -> [RelayURL] { try names.map { try RelayURL("wss://\($0).example") } }
        let ours = try urls("a", "b")
        #expect(MarmotClient.newGroupRelays(ours: ours, invitees: []) == ours)
        #expect(MarmotClient.newGroupRelays(ours: ours, invitees: [try urls("b", "a")]) == ours)
        #expect(MarmotClient.newGroupRelays(ours: ours, invitees: [try urls("c")]) == (try urls("a", "b", "c")))
        #expect(MarmotClient.newGroupRelays(ours: ours, invitees: [try urls("c", "a"), try urls("d", "c")])
                == (try urls("a", "b", "c", "d")))
        // Capped at 8 by default: ours (6) fill first, then one relay of each disjoint invitee.
        let many = try urls("o1", "o2", "o3", "o4", "o5", "o6")
        let capped = MarmotClient.newGroupRelays(
            ours: many, invitees: [try urls("x1", "x2", "x3"), try urls("o2"), try urls("y1", "y2")])
        #expect(capped == (try urls("o1", "o2", "o3", "o4", "o5", "o6", "x1", "y1")))
        #expect(MarmotClient.maxGroupRelays == 8)
        // One relay written with and without a bare trailing slash is one relay.
        #expect(MarmotClient.newGroupRelays(ours: ours, invitees: [[try RelayURL("wss://a.example/")]]) == ours)
        #expect(MarmotClient.newGroupRelays(ours: ours, invitees: [[try RelayURL("wss://a.example/x/")]]).count == 3)
        // More disjoint invitees than room: our first relay stays, then invitees in order.
        let tight = MarmotClient.newGroupRelays(
            ours: try urls("a", "b", "c"), invitees: [try urls("x"), try urls("y"), try urls("z")], cap: 3)
        #expect(tight == (try urls("a", "x", "y")))
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
        #expect(lists.allListed.map(\.string) == ["wss://both.example", "wss://in.example", "wss://out.example"])
        #expect(RelayLists(events: [new], author: Keys.generate().publicKey) == RelayLists())
    }
}
