import Foundation
import MLS
import Nostr
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Devices another device added (issue 29): the Notes chat's leaves are this account's devices
/// whoever linked them, and each device's leaves in other chats are known to all of them through
/// its announcement in Notes. Real clients on an embedded relay.
@Suite(.serialized, .timeLimit(.minutes(4))) struct DeviceRecognitionTests {
    /// A links B, B links C (a third installation, started after B joined): A lists B and C as
    /// linked devices under the ids B gave them, none waiting; A's `addMyDevices` adds both to a
    /// group with X (another account), and both join by themselves. B, which added no one there,
    /// knows every leaf of the account in it: it has no device left to add, and removing C from B
    /// takes C's leaf out of the group too. X's leaf never appears as ours, and an announcement X
    /// sends in the group claiming its own leaf is dropped by A, which pins nothing for it.
    @Test func aDeviceAnotherDeviceLinkedIsListedAddedAndRemovedEverywhere() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let a = try await TestAccount("a", relayURLs: [url])
        let x = try await TestAccount("x", relayURLs: [url])
        let b = try await TestAccount("b", keys: a.keys, relayURLs: [url])
        _ = try await x.client.ensureKeyPackages()
        _ = try await b.client.ensureKeyPackages()

        let notes = try await a.client.openNotes()
        let bID = try await waitUntilValue("B waiting on A") { ((try? await a.client.devices()) ?? []).first { !$0.isLinked }?.id }
        try await a.client.linkDevice(bID)
        try await waitUntil("B in Notes") { await b.client.notesChat()?.id == notes.id }

        let c = try await TestAccount("c", keys: a.keys, relayURLs: [url])
        _ = try await c.client.ensureKeyPackages()
        let cID = try await waitUntilValue("C waiting on B") { ((try? await b.client.devices()) ?? []).first { !$0.isLinked }?.id }
        try await b.client.linkDevice(cID)
        try await waitUntil("C in Notes") { await c.client.notesChat()?.id == notes.id }

        // A learns C's `d` tag from C's announcement, so C's fresh key package (after its
        // Welcome) is C, not a device waiting; B and C are listed under the ids their linkers gave.
        let cSlot = try #require(await c.client.ownDTags().first)
        try await waitUntil("A knows C's d tag") {
            (try? a.store.setting(ClientSettings.deviceSlot(cSlot))).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } == cID
        }
        let onA = try await waitUntilValue("A lists B and C, none waiting") { () -> [AccountDevice]? in
            let devices = (try? await a.client.devices()) ?? []
            return devices.count == 3 && devices.allSatisfy(\.isLinked) ? devices : nil
        }
        #expect(Set(onA.filter { !$0.isThisDevice }.map(\.id)) == [bID, cID])
        #expect(onA.filter(\.isThisDevice).count == 1)

        // A group with X: A adds both other devices, including C, which A never linked.
        let party = try await a.client.createGroup(name: "Party", members: [x.publicKey]).chat.id
        _ = try await x.waitForWelcome()
        // Their Welcomes consumed B's and C's key packages: their fresh ones must be out first.
        try await waitUntil("B's and C's fresh key packages on the relay") {
            for device in [b, c] {
                let stored = (try? device.store.keyPackages()) ?? []
                guard stored.count >= 2, let newest = stored.max(by: { $0.createdAt < $1.createdAt }),
                    (try? device.store.setting(ClientSettings.keyPackageConsumed(newest.ref))).flatMap({ $0 }) == nil,
                    let event = newest.eventID, let found = try? await RelayReads.fetch(Filter(ids: [event]), from: url),
                    !found.isEmpty
                else { return false }
            }
            return true
        }
        let added = try await waitUntilValue("B and C added") { try? await a.client.addMyDevices(to: party) }
        #expect(Set(added) == [bID, cID])
        for device in [b, c] {
            try await waitUntil("\(device.name) joined the party by itself") { await (try? device.client.chat(party))?.status == .active }
        }
        try await waitUntil("X sees three leaves of A's account") {
            await ((try? x.client.chat(party))?.members.filter { $0 == a.publicKey }.count ?? 0) == 3
        }
        // B, which added no one there, knows A's and C's leaves from their announcements.
        try await waitUntil("B has A's and C's leaves in the party pinned") {
            await b.client.pinnedOwnLeavesForTesting(party).count == 2
        }
        #expect(await b.client.pinnedOwnLeavesForTesting(party).contains(cID))
        await #expect(throws: DeviceError.noOtherDevice) { try await b.client.addMyDevices(to: party) }
        // X, in a chat with all three, is never one of our devices.
        let onB = try await b.client.devices()
        #expect(onB.count == 3)
        #expect(onB.allSatisfy { $0.isLinked })

        _ = try await x.client.send(text: "hello all three", to: party)
        for device in [a, b, c] { _ = try await device.waitForMessage("hello all three") }
        _ = try await c.client.send(text: "from C", to: party)
        #expect(try await a.waitForMessage("from C").isMine)
        #expect(try await x.waitForMessage("from C").sender == a.publicKey)

        // X claims, in the party, that its own leaf is one of A's devices.
        let xLeaf = try #require(await x.client.ownLeafForTesting(party))
        let forged = DeviceAnnouncement(slots: ["forged-slot"], leaves: [.init(group: party.description, leaf: xLeaf.rawValue)])
        _ = try await x.client.send(kind: DeviceAnnouncement.kind, content: forged.encoded(), tags: [], to: party)
        let (_, reason) = try await a.waitForDrop { if case .invalidRumor = $0 { true } else { false } }
        #expect(reason == .invalidRumor(.malformed("a device announcement outside this account's Notes chat")))
        #expect(await a.client.pinForTesting(party, leaf: xLeaf) == nil)
        #expect(try a.store.setting(ClientSettings.deviceSlot("forged-slot")) == nil)

        // B removes C, which A added to the party: from Notes and from the party.
        #expect(try await b.client.removeDevice(cID) == 2)
        try await waitUntil("C out of Notes and of the party") {
            let inParty = await (try? c.client.chat(party))?.status
            let inNotes = await (try? c.client.chat(notes.id))?.status
            return inParty == .inactive && inNotes == .inactive
        }
        try await waitUntil("X sees two leaves of A's account") {
            await ((try? x.client.chat(party))?.members.filter { $0 == a.publicKey }.count ?? 0) == 2
        }
        try await waitUntil("A lists two devices") { ((try? await a.client.devices()) ?? []).filter(\.isLinked).count == 2 }

        for account in [c, b, x, a] { await account.shutdown() }
        await server.stop()
    }
}

extension MarmotClient {
    func ownLeafForTesting(_ id: GroupID) -> LeafIndex? { sessions[id]?.mls.ownLeafIndex }

    /// The device ids pinned to the other leaves of our account in group `id`.
    func pinnedOwnLeavesForTesting(_ id: GroupID) -> [String] {
        guard let session = sessions[id] else { return [] }
        return session.mls.members.filter {
            NostrIdentity.publicKey($0.credential) == publicKey && $0.leafIndex != session.mls.ownLeafIndex
        }.compactMap { pinnedDeviceID($0, in: id) }
    }

    func pinForTesting(_ id: GroupID, leaf: LeafIndex) -> String? {
        (try? store.setting(ClientSettings.deviceLeaf(id, leaf))).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) }
    }
}
