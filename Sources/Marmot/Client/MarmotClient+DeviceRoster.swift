import Foundation
import MLS
import Nostr
import NostrClient

/// What one device of this account tells the account's other devices about itself, in the Notes
/// chat (issue 29): the `d` tags it publishes key packages under and its own leaf in each of its
/// groups. A leaf carries no device identity (each Add uses a fresh key package with a fresh
/// signature key, and key updates change it again), so without this a device knows only the leaves
/// it added itself: a device another device linked, or added to a chat, would be offered again as
/// waiting or added twice. Sent as an application message of `kind` that is never stored or shown.
struct DeviceAnnouncement: Codable, Sendable, Equatable {
    /// One of the sender's own leaves: MLS group id (hex) and leaf index.
    struct Leaf: Codable, Sendable, Equatable {
        let group: String
        let leaf: UInt32
    }

    /// The rumor kind (ephemeral range: a control message, not a note).
    static let kind = Kind(20449)
    static let maxSlots = 8
    static let maxLeaves = 2000

    var slots: [String]
    var leaves: [Leaf]

    func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// Parses and bounds an announcement; nil when it is not one (logged by the caller).
    static func decode(_ content: String) -> DeviceAnnouncement? {
        guard let parsed = try? JSONDecoder().decode(DeviceAnnouncement.self, from: Data(content.utf8)),
            parsed.slots.count <= maxSlots, parsed.leaves.count <= maxLeaves,
            parsed.slots.allSatisfy({ !$0.isEmpty && $0.count <= 128 }),
            parsed.leaves.allSatisfy({ Hex.decode($0.group).map { !$0.isEmpty && $0.count <= 64 } ?? false })
        else { return nil }
        return parsed
    }
}

extension MarmotClient {
    /// Tells our other devices in the Notes chat which `d` tags and leaves are this device's. Sent
    /// whenever that may be news to one of them: after joining any group, after linking a device or
    /// adding ours to a chat, and when another device joins Notes. Not kept for retry: the next
    /// occasion sends it again, whole.
    func announceThisDevice() async {
        await acquire()
        guard let notes = notesSession(), notes.mls.isActive, notes.stored.status == .active, notes.mls.members.count > 1 else {
            release()
            return
        }
        let leaves = sessions.values.filter { $0.id != notes.id && $0.mls.isActive && $0.stored.status == .active }
            .sorted { $0.id.description < $1.id.description }
            .prefix(DeviceAnnouncement.maxLeaves)
            .map { DeviceAnnouncement.Leaf(group: $0.id.description, leaf: $0.mls.ownLeafIndex.rawValue) }
        let slots = Array((ownDTags().sorted() + legacyKeyPackageSlots()).prefix(DeviceAnnouncement.maxSlots))
        let announcement = DeviceAnnouncement(slots: slots, leaves: Array(leaves))
        let event: Event
        do {
            let rumor = try ChatRumor(author: publicKey, content: announcement.encoded(), kind: DeviceAnnouncement.kind, createdAt: now())
            let (sealed, key, keepState) = try sealOwn(rumor, in: notes)
            event = try notes.rules.groupEvent(
                sealed, nostrGroupID: notes.stored.nostrGroupID, key: key,
                createdAt: notes.rules.outerCreatedAt(inner: rumor.createdAt, now: now()),
                expiration: expiry(createdAt: rumor.createdAt, in: notes))
            try storage {
                try store.unitOfWork {
                    try keepState()
                    try store.recordProcessedEvent(ProcessedEvent(eventID: event.id, outcome: .own, processedAt: now(), mlsGroupID: notes.id))
                }
            }
        } catch {
            release()
            logger.warning("cannot announce this device in notes: \(error)")
            return
        }
        let targets = route(notes.id)
        release()
        let result = await pool.publish(event, to: targets)
        logger.info("announced this device (\(announcement.slots.count) slots, \(announcement.leaves.count) leaves): \(result.accepted.count) relays")
    }

    /// The slot of a key package event: its `d` tag, or for a kind-443 event (no `d` tag; v1 goes
    /// out that way beside v2, `publishesAddressableV1`) its key package reference.
    static func slot(of package: PeerKeyPackage) -> String {
        package.dTag?.value ?? "ref:" + Hex.encode(package.ref.bytes)
    }

    /// Our usable v1 key packages that go out as kind 443 only, as slots (`slot(of:)`), newest
    /// first: without them another device could not tell which v1 key package is ours to add.
    func legacyKeyPackageSlots() -> [String] {
        guard !publishesAddressableV1, let stored = try? store.keyPackages() else { return [] }
        return stored.filter { isUsable($0) && (try? OwnKeyPackageRecord(encoded: $0.privateMaterial))?.version == .v1 }
            .sorted { $0.createdAt > $1.createdAt }
            .prefix(4)
            .map { "ref:" + Hex.encode($0.ref.bytes) }
    }

    /// Takes in another device's announcement, read in the Notes chat from leaf `sender`: its slots
    /// map to its device id (`deviceSlot`), its leaves in our groups are pinned to it
    /// (`deviceLeaf`). Only a leaf of our own account in Notes is listened to; a leaf it names in a
    /// group where that leaf is someone else's is left alone.
    func takeAnnouncement(_ content: String, from sender: LeafIndex, in notesID: GroupID) {
        guard let notes = sessions[notesID], let member = notes.mls.member(at: sender),
            NostrIdentity.publicKey(member.credential) == publicKey, sender != notes.mls.ownLeafIndex
        else { return }
        guard let announcement = DeviceAnnouncement.decode(content) else {
            logger.warning("device announcement from leaf \(sender.rawValue) of notes is malformed; ignored")
            return
        }
        let device = deviceID(of: member, in: notes)
        let own = ownDTags()
        for slot in announcement.slots where !own.contains(slot) {
            try? store.setSetting(ClientSettings.deviceSlot(slot), Data(device.utf8))
        }
        for entry in announcement.leaves {
            guard let bytes = Hex.decode(entry.group) else { continue }
            let group = GroupID(Data(bytes))
            let leaf = LeafIndex(entry.leaf)
            if group == notesID { continue }
            if let session = sessions[group] {
                if leaf == session.mls.ownLeafIndex { continue }
                // Not yet in our copy (its Add may come later): pinned now, checked when used.
                if let other = session.mls.member(at: leaf), NostrIdentity.publicKey(other.credential) != publicKey { continue }
            }
            try? store.setSetting(ClientSettings.deviceLeaf(group, leaf), Data(device.utf8))
        }
        logger.info("device \(device) announced \(announcement.slots.count) slots and \(announcement.leaves.count) leaves")
    }

    /// Keeps device pins right through another member's commit: a removed leaf's pin goes (its
    /// index may be reused); in Notes an added leaf of ours is pinned to its key package's
    /// signature key, the id the device that linked it gave it, before its own key update changes
    /// the key; and the new device hears from us (`announceThisDevice`).
    func noteDeviceLeaves(_ summary: CommitSummary, in group: GroupID) {
        for member in summary.removed { try? store.setSetting(ClientSettings.deviceLeaf(group, member.leafIndex), nil) }
        guard group == notesGroupID() else { return }
        let ours = summary.added.filter { NostrIdentity.publicKey($0.credential) == publicKey }
        guard !ours.isEmpty else { return }
        for member in ours {
            let id = AccountDevice.identifier(for: member.signatureKey)
            try? store.setSetting(ClientSettings.deviceLeaf(group, member.leafIndex), Data(id.utf8))
        }
        Task { [weak self] in await self?.announceThisDevice() }
    }
}
