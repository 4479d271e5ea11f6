import Foundation
import MLS
import Nostr
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Our other devices in other chats (issue 29): A adds its linked device B to chats with a third
/// party C, and removing B takes its leaf out of every chat A may remove it from. Real clients on
/// an embedded relay.
@Suite(.serialized, .timeLimit(.minutes(4))) struct DeviceGroupsTests {
    /// With the default key package versions (v1 and v2), v1 key packages go out as kind 443 only,
    /// without a `d` tag. C speaks v1 only, so A's group with C is v1; A still finds B's v1 key
    /// package, because B announced its reference in Notes, and adds B; B reads C. Before B's
    /// announcement named its kind-443 key packages, A found none of B's and could not add it.
    @Test func aV1GroupGetsOurOtherDeviceWhoseKeyPackageHasNoDTag() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var v1Only = ClientHarness.options
        v1Only.keyPackageVersions = [.v1]
        let a = try await TestAccount("a", relayURLs: [url])
        let c = try await TestAccount("c", relayURLs: [url], options: v1Only)
        let b = try await TestAccount("b", keys: a.keys, relayURLs: [url])
        #expect(a.options.keyPackageVersions == [.v1, .v2])
        _ = try await c.client.ensureKeyPackages()
        _ = try await b.client.ensureKeyPackages()

        let (_, bID) = try await Self.link(b, into: a)

        let trip = try await a.client.createGroup(name: "Trip", members: [c.publicKey]).chat.id
        #expect(try await a.client.chat(trip)?.version == .v1)
        _ = try await c.waitForWelcome()
        let added = try await waitUntilValue("B added to the v1 group") { try? await a.client.addMyDevices(to: trip) }
        #expect(added == [bID])
        try await waitUntil("B joined the group by itself") { await (try? b.client.chat(trip))?.status == .active }
        _ = try await c.client.send(text: "hello v1 phone", to: trip)
        _ = try await b.waitForMessage("hello v1 phone")
        for account in [a, b, c] { await account.shutdown() }
        await server.stop()
    }

    /// A opens Notes and links B (same nsec, another database) once B is listed as waiting;
    /// returns the Notes chat and B's device id.
    static func link(_ b: TestAccount, into a: TestAccount) async throws -> (notes: Chat, device: String) {
        let notes = try await a.client.openNotes()
        let bID = try await waitUntilValue("B waiting to be linked") {
            ((try? await a.client.devices()) ?? []).first { !$0.isLinked }?.id
        }
        try await a.client.linkDevice(bID)
        try await waitUntil("B in notes") { await b.client.notesChat()?.id == notes.id }
        return (notes, bID)
    }

    /// A links B (same nsec, another database) into Notes, makes a group with C and adds B to it
    /// (`addMyDevices`); B joins without being asked and reads C; C reads B's message as A's
    /// account; A reads B's message as its own. A second group has C as co-admin and A steps down
    /// after adding B there. Then A removes B: Notes and the first group report `.done`, the second
    /// `.notAllowed`; C's member list has one leaf of A's account left; and B, still holding its
    /// old state, is handed every kind-445 event on the relay and reads none of what C and A wrote
    /// after (the positive control: it read C's message before).
    @Test func addedDeviceReadsTheGroupAndIsRemovedFromEveryGroupWeAdminister() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let a = try await TestAccount("a", relayURLs: [url])
        let c = try await TestAccount("c", relayURLs: [url])
        let b = try await TestAccount("b", keys: a.keys, relayURLs: [url])
        _ = try await c.client.ensureKeyPackages()
        _ = try await b.client.ensureKeyPackages()

        // Link B into A's Notes chat.
        let (notes, bID) = try await Self.link(b, into: a)

        // A group with C where A is admin; A adds its other devices.
        let trip = try await a.client.createGroup(name: "Trip", members: [c.publicKey]).chat.id
        _ = try await c.waitForWelcome()
        let added = try await waitUntilValue("B added to the group") { try? await a.client.addMyDevices(to: trip) }
        #expect(added == [bID])
        try await waitUntil("B joined the group by itself") { await (try? b.client.chat(trip))?.status == .active }
        try await waitUntil("C sees two leaves of A's account") {
            await ((try? c.client.chat(trip))?.members.filter { $0 == a.publicKey }.count ?? 0) == 2
        }
        // Nothing left to add: B is in.
        await #expect(throws: DeviceError.noOtherDevice) { try await a.client.addMyDevices(to: trip) }

        _ = try await c.client.send(text: "hello both", to: trip)
        _ = try await a.waitForMessage("hello both")
        _ = try await b.waitForMessage("hello both")
        _ = try await b.client.send(text: "from the phone", to: trip)
        let onA = try await a.waitForMessage("from the phone")
        #expect(onA.isMine)
        let onC = try await c.waitForMessage("from the phone")
        #expect(!onC.isMine)
        #expect(onC.sender == a.publicKey)

        // A second group where C is co-admin; A adds B, then steps down.
        let club = try await a.client.createGroup(name: "Club", members: [c.publicKey], admins: [c.publicKey]).chat.id
        _ = try await c.waitForWelcome()
        _ = try await waitUntilValue("B added to the club") { try? await a.client.addMyDevices(to: club) }
        try await waitUntil("B joined the club") { await (try? b.client.chat(club))?.status == .active }
        _ = try await a.client.selfDemote(club)

        let results = try await a.client.removeDeviceEverywhere(bID)
        let byGroup = Dictionary(uniqueKeysWithValues: results.map { ($0.group, $0) })
        #expect(results.count == 3)
        #expect(results.first?.isNotes == true)
        #expect(byGroup[notes.id]?.status == .done)
        #expect(byGroup[trip]?.status == .done)
        #expect(byGroup[club]?.status == .notAllowed)

        try await waitUntil("C sees one leaf of A's account") {
            await ((try? c.client.chat(trip))?.members.filter { $0 == a.publicKey }.count ?? 0) == 1
        }
        try await waitUntil("B out of the group and of notes") {
            let group = await (try? b.client.chat(trip))?.status
            let own = await (try? b.client.chat(notes.id))?.status
            return group == .inactive && own == .inactive
        }

        _ = try await c.client.send(text: "after removal", to: trip)
        _ = try await a.waitForMessage("after removal")
        _ = try await a.client.send(text: "note after removal", to: notes.id)
        // B, removed, gets every group event on the relay again and reads none of the new ones.
        let events = try await RelayReads.fetch(Filter(kinds: [.groupMessage]), from: url)
        #expect(events.count > 6)
        for event in events { await b.client.handleGroupEvent(event) }
        let seen = await b.pendingEvents().compactMap { event -> String? in
            if case .messageReceived(_, let message) = event { message.content } else { nil }
        }
        #expect(!seen.contains("after removal"))
        #expect(!seen.contains("note after removal"))
        let groupTexts = try await b.allMessages(trip).map(\.content)
        let noteTexts = try await b.allMessages(notes.id).map(\.content)
        #expect(groupTexts.contains("hello both"))
        #expect(!groupTexts.contains("after removal"))
        #expect(!noteTexts.contains("note after removal"))

        await b.shutdown()
        await c.shutdown()
        await a.shutdown()
        await server.stop()
    }
}
