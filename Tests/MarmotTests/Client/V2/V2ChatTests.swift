import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Our clients talking Marmot v2 to each other (no v2 peer of another implementation runs here), and
/// v1 beside it: each chat keeps the version it was made with.
@Suite(.serialized, .timeLimit(.minutes(3))) struct V2ChatTests {
    /// Bob publishes key packages of both versions; Alice's chat with him is v2, and what goes on the
    /// relay has v2's shape: his v2 key package event, the Welcome rumor's two tags, kind-445 events
    /// with only an `h` tag, and handshakes framed as PublicMessage.
    @Test func oneToOneChatOverV2() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let alice = try await TestAccount("alice", relayURLs: [url])
        let bob = try await TestAccount("bob", relayURLs: [url])
        let upkeep = try await bob.client.ensureKeyPackages()
        #expect(Set(upkeep.keys) == [.v1, .v2])
        let offered = try await V2HostileParty.keyPackage(of: bob.publicKey, on: url)

        let created = try await alice.client.createChat(with: bob.publicKey)
        #expect(created.chat.version == .v2)
        let (bobChat, inviter) = try await bob.waitForWelcome()
        #expect(bobChat.version == .v2)
        #expect(inviter == alice.publicKey)
        let id = created.chat.id
        // Bob's post-join self-update (a PublicMessage commit with a fresh account proof) reaches Alice.
        #expect(try await alice.waitForCommit(epoch: 2, by: bob.publicKey) == bob.publicKey)

        _ = try await alice.client.send(text: "hello over v2", to: id)
        _ = try await bob.waitForMessage("hello over v2")
        _ = try await bob.client.send(text: "hi back", to: id)
        _ = try await alice.waitForMessage("hi back")
        #expect(await alice.epochState(id)?.authenticator == (await bob.epochState(id))?.authenticator)

        // The wire, as MDK 0.9's code requires it.
        let h = created.chat.nostrGroupID.hex
        let groupEvents = try await RelayReads.fetch(Filter(kinds: [.groupMessage], tags: ["h": [h]]), from: url)
        #expect(groupEvents.count >= 3)
        for event in groupEvents { #expect(event.tags == [Tag(["h", h])]) }
        let wraps = try await RelayReads.fetch(Filter(kinds: [.giftWrap], tags: ["p": [bob.publicKey.hex]]), from: url)
        let rumor = try GiftWrap.unwrap(try #require(wraps.first), recipient: bob.keys.secretKey).rumor
        #expect(rumor.tags.map(\.name) == ["e", "relays"])
        #expect(rumor.tags.first?.value == offered.eventID.hex)
        let kp = try await RelayReads.fetch(Filter(authors: [bob.publicKey], kinds: [.addressableKeyPackage]), from: url)
        let v2Events = kp.filter { (try? PeerKeyPackage(v2Event: $0, now: UnsignedEvent.now())) != nil }
        // The consumed key package was replaced under the same `d` tag: one v2 event remains.
        #expect(v2Events.count == 1)
        #expect(v2Events.first?.id != offered.eventID)
        #expect(v2Events.first?.tags.compactMap(\.name) == V2KeyPackageEvent.tagOrder)
        // No v1 key package of kind 30443 (White Noise reads every one); it is kind 443 alone.
        #expect(kp.filter { (try? PeerKeyPackage(event: $0)) != nil }.isEmpty)
        let legacy = try await RelayReads.fetch(Filter(authors: [bob.publicKey], kinds: [.keyPackage]), from: url)
        #expect(legacy.filter { (try? PeerKeyPackage(event: $0)) != nil }.count == 1)
        #expect(await alice.client.configurationForTesting(id) == .marmotV2)

        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// A three-member v2 group: rename and promotion by AppDataUpdate, add, remove, and a member who
    /// leaves (SelfRemove, committed by the admin); every side ends on the same epoch and data.
    @Test func groupOverV2WithRenameAddRemoveLeave() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, id) = try await V2Fixtures.trio(url)
        let dave = try await TestAccount("dave", relayURLs: [url])
        _ = try await dave.client.publishKeyPackage(version: .v2)

        _ = try await alice.client.updateGroupData(id, name: "Renamed", description: "v2 words")
        _ = try await bob.waitForCommit(epoch: 4, by: alice.publicKey)
        #expect(try await bob.client.chat(id)?.name == "Renamed")
        #expect(try await bob.client.chat(id)?.groupDescription == "v2 words")
        let renamed = try #require(try await bob.allMessages(id).last { $0.deliveryState == .notice })
        #expect(SystemNotice(content: renamed.content) == SystemNotice(change: .renamed, actor: alice.publicKey, subject: alice.publicKey))

        _ = try await alice.client.updateGroupData(id, admins: [alice.publicKey, bob.publicKey])
        _ = try await carol.waitForCommit(epoch: 5, by: alice.publicKey)
        #expect(Set(try #require(try await carol.client.chat(id)).admins) == [alice.publicKey, bob.publicKey])

        let added = try await alice.client.addMembers([dave.publicKey], to: id)
        #expect(added.welcomes[dave.publicKey]?.isSent == true)
        let (daveChat, _) = try await dave.waitForWelcome()
        #expect(daveChat.version == .v2)
        #expect(daveChat.name == "Renamed")
        _ = try await bob.waitForCommit(epoch: 6, by: alice.publicKey)
        _ = try await bob.waitForCommit(epoch: 7, by: dave.publicKey)

        _ = try await bob.client.removeMembers([dave.publicKey], from: id)
        _ = try await carol.waitForCommit(epoch: 8, by: bob.publicKey)

        // Carol (not an admin) leaves: her SelfRemove is committed by an admin.
        _ = try await carol.client.leaveGroup(id)
        var members = try await alice.client.chat(id)?.members ?? []
        for _ in 0..<100 where members.contains(carol.publicKey) {
            try await Task.sleep(for: .milliseconds(100))
            members = try await alice.client.chat(id)?.members ?? []
        }
        #expect(Set(members) == [alice.publicKey, bob.publicKey])
        _ = try await alice.client.send(text: "just us", to: id)
        _ = try await bob.waitForMessage("just us")
        #expect(await alice.epochState(id)?.authenticator == (await bob.epochState(id))?.authenticator)
        for account in [alice, bob, carol, dave] { await account.shutdown() }
        await server.stop()
    }

    /// A peer with only a v1 key package gets a v1 chat, while a v2 chat with another peer goes on
    /// beside it; a new group whose members share only v1 is v1.
    @Test func v1AndV2ChatsSideBySide() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let alice = try await TestAccount("alice", relayURLs: [url])
        let bob = try await TestAccount("bob", relayURLs: [url])
        let carol = try await TestAccount("carol", relayURLs: [url])
        _ = try await bob.client.ensureKeyPackages()
        _ = try await carol.client.publishKeyPackage(version: .v1)

        let withBob = try await alice.client.createChat(with: bob.publicKey)
        let withCarol = try await alice.client.createChat(with: carol.publicKey)
        #expect(withBob.chat.version == .v2)
        #expect(withCarol.chat.version == .v1)
        _ = try await bob.waitForWelcome()
        let (carolChat, _) = try await carol.waitForWelcome()
        #expect(carolChat.version == .v1)
        _ = try await alice.client.send(text: "to bob", to: withBob.chat.id)
        _ = try await alice.client.send(text: "to carol", to: withCarol.chat.id)
        _ = try await bob.waitForMessage("to bob")
        _ = try await carol.waitForMessage("to carol")

        let group = try await alice.client.createGroup(name: "Mixed", members: [bob.publicKey, carol.publicKey])
        #expect(group.chat.version == .v1)
        await alice.shutdown()
        await bob.shutdown()
        await carol.shutdown()
        await server.stop()
    }

    /// An admin moves the group to more relays (a 0x8004 AppDataUpdate): the members' pools join
    /// them, so the group's traffic is read and written there too.
    @Test func routingUpdateBringsTheNewRelaysIntoThePool() async throws {
        let (a, urlA) = try await ClientHarness.startRelay()
        let (d, urlD) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [urlA])
        _ = try await bob.client.publishKeyPackage(version: .v2)
        var admin = V2HostileParty()
        try await admin.invite(bob.publicKey, on: urlA)
        let invite = try await bob.waitForInvite()
        let routing = try NostrRouting(nostrGroupID: try #require(admin.nostrGroupID).bytes, relays: [urlA, urlD])
        let move = try admin.commit {
            try $0.commit(proposals: [.appDataUpdate(.update(MarmotComponentID.nostrRouting, Data(routing.bytes)))])
        }
        #expect(try await RelayReads.publish(try admin.event(move.message, epochOf: move.before), to: urlA).isAccepted)
        _ = try await bob.client.acceptInvite(invite.id)
        _ = try await bob.waitForCommit(epoch: 2, by: admin.publicKey)
        #expect(Set(try #require(try await bob.client.chat(invite.id)).relays.map(\.string)) == [urlA, urlD])
        try await waitUntil("relay D in Bob's pool", timeout: 10) { await bob.pool.relays.contains(urlD) }
        await bob.shutdown()
        await a.stop()
        await d.stop()
    }

    /// An admin disbands a v2 group as MDK 0.9.14 does (`disband.rs`: Bob's leaf removed, lifecycle
    /// 0x800c disbanded and the admin policy the admin alone, all inline): the chat closes for its
    /// members, with one "disbanded" line and no removal line.
    @Test func disbandedGroupBecomesInactive() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage(version: .v2)
        var admin = V2HostileParty()
        try await admin.invite(bob.publicKey, on: url)
        let invite = try await bob.waitForInvite()
        let policy = try AdminPolicy(admins: [admin.publicKey])
        let disband = try admin.commit {
            try $0.commit(proposals: [
                .remove(Remove(removed: LeafIndex(1))),
                .appDataUpdate(.update(MarmotComponentID.lifecycle, Data(GroupLifecycle.disbanded.bytes))),
                .appDataUpdate(.update(MarmotComponentID.adminPolicy, Data(policy.bytes))),
            ])
        }
        #expect(try await RelayReads.publish(try admin.event(disband.message, epochOf: disband.before), to: url).isAccepted)
        _ = try await bob.client.acceptInvite(invite.id)
        try await waitUntil("bob's chat closed", timeout: 30) { (try? await bob.client.chat(invite.id))??.status == .inactive }
        let notices = try await bob.allMessages(invite.id).filter { $0.deliveryState == .notice }.compactMap { SystemNotice(content: $0.content) }
        #expect(notices.last == SystemNotice(change: .disbanded, actor: admin.publicKey, subject: admin.publicKey))
        #expect(!notices.contains { $0.change == .removed })
        await #expect(throws: MarmotClientError.self) { _ = try await bob.client.send(text: "anyone?", to: invite.id) }
        await bob.shutdown()
        await server.stop()
    }
}

extension MarmotClient {
    /// The MLS policy a group runs with (v1 or v2 framing).
    func configurationForTesting(_ id: GroupID) -> GroupConfiguration? { sessions[id]?.mls.configuration }
}
