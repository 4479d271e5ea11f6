import Foundation
import MLS
import Nostr
import NostrClient

extension ClientSettings {
    /// When this device linked another one of the account (Unix seconds as text), by device id.
    static func deviceLinked(_ id: String) -> String { "client.device_linked.\(id)" }

    /// The device id linked from a key package published under this `d` tag: the device's next
    /// key packages (rotated after our Welcome consumed one) come under the same tag.
    static func deviceSlot(_ dTag: String) -> String { "client.device_slot.\(dTag)" }

    /// A `d` tag of an installation that was in the Notes chat when this device joined it.
    static func linkedBeforeUs(_ dTag: String) -> String { "client.device_linked_before_us.\(dTag)" }

    /// The device id pinned to a leaf of a group: a leaf's signature key changes with its key
    /// updates (the post-join one of MIP-02, the periodic ones), its device id must not.
    static func deviceLeaf(_ group: GroupID, _ leaf: LeafIndex) -> String { "client.device_leaf.\(group).\(leaf.rawValue)" }
}

/// One installation of this account: a leaf of the Notes chat, or a key package of ours published
/// by another installation (its own `d` tag) that waits to be linked.
public struct AccountDevice: Sendable, Hashable, Identifiable {
    /// The first 16 hex digits of the device's MLS signature key: its key package's leaf keeps it
    /// when added, so the id of a waiting device is the id it has once linked.
    public let id: String
    /// The client that published it (the key package's `client` tag), else "Marmot".
    public let name: String
    /// When it joined the Notes chat, when known (this device: when it made or joined the chat).
    public let addedAt: Int64?
    public let isThisDevice: Bool
    /// False: a key package of this account from another installation, not in the Notes chat yet.
    public let isLinked: Bool
    public let version: MarmotVersion

    public init(id: String, name: String, addedAt: Int64?, isThisDevice: Bool, isLinked: Bool, version: MarmotVersion) {
        self.id = id
        self.name = name
        self.addedAt = addedAt
        self.isThisDevice = isThisDevice
        self.isLinked = isLinked
        self.version = version
    }

    static func identifier(for key: SignaturePublicKey) -> String { String(Hex.encode(key.bytes).prefix(16)) }
}

/// Why a device operation was refused.
public enum DeviceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No device of this account has this id (or it is not waiting / not linked, as the call needs).
    case unknownDevice(String)
    /// This device cannot remove itself (MLS: a member never commits its own removal).
    case thisDevice
    /// Every linked device of this account is in the chat already (or none is linked).
    case noOtherDevice

    public var description: String {
        switch self {
        case .unknownDevice(let id): "devices: no device \(id) of this account"
        case .thisDevice: "devices: this device cannot remove itself"
        case .noOtherDevice: "devices: no other linked device to add"
        }
    }
}

/// Linked devices (issue 29): each installation of an account is its own MLS member (its own
/// leaf and signature key, under the account's Nostr identity); an existing device adds a new one
/// to the Notes chat with an ordinary Add, as MDK's multi-device exploration describes. No MLS
/// state is copied between devices, so a linked device reads notes from its Add on only.
extension MarmotClient {
    /// This account's devices: the Notes chat's leaves (this device marked), then the key packages
    /// of this account that other installations published and that are not in the Notes chat yet.
    /// Only events this account signed, whose leaf credential is our npub (and in v2 whose account
    /// proof 0x8009 verifies: `PeerKeyPackage(v2Event:)`) are offered. Makes the Notes chat if needed.
    public func devices() async throws -> [AccountDevice] {
        let notes = try await openNotes()
        let linked = linkedDevices()
        let waiting = try await waitingDevices(version: notes.version).map(\.device)
        return linked + waiting
    }

    /// Adds the waiting device `id` to the Notes chat (an Add commit, then its Welcome).
    @discardableResult
    public func linkDevice(_ id: String) async throws -> AccountDevice {
        let notes = try await openNotes()
        guard let found = try await waitingDevices(version: notes.version).first(where: { $0.device.id == id.lowercased() }) else {
            throw DeviceError.unknownDevice(id)
        }
        await acquireSettled(notes.id)
        var welcome: Welcome?
        do {
            _ = try await commitExclusive(notes.id) { mls, filter throws(GroupError) in
                let pending = try mls.commit(adding: [found.package.keyPackage], proposalFilter: filter)
                welcome = pending.welcome
                return pending
            }
        } catch {
            release()
            throw error
        }
        let groupRelays = sessions[notes.id]?.stored.relays ?? relays
        let added = found.package.keyPackage.leafNode.signatureKey
        if let leaf = sessions[notes.id]?.mls.members.first(where: { $0.signatureKey == added }) {
            try? store.setSetting(ClientSettings.deviceLeaf(notes.id, leaf.leafIndex), Data(found.device.id.utf8))
        }
        try? store.setSetting(ClientSettings.deviceLinked(found.device.id), Data(String(now()).utf8))
        if let slot = found.package.dTag {
            try? store.setSetting(ClientSettings.deviceSlot(slot.value), Data(found.device.id.utf8))
        }
        release()
        guard let welcome else { throw MarmotClientError.encoding("the Add commit produced no Welcome") }
        let sent = try await sendWelcomes(welcome, to: [found.package], relays: groupRelays, group: notes.id)
        logger.info("linked device \(found.device.id) into notes \(notes.id): welcome on \(sent.values.first?.accepted.count ?? 0) relays")
        await announceThisDevice()
        return AccountDevice(
            id: found.device.id, name: found.device.name, addedAt: now(), isThisDevice: false, isLinked: true,
            version: found.device.version)
    }

    /// Removes device `id`'s leaf from every group where this device may remove it
    /// (`removeDeviceEverywhere`). Returns how many groups it left.
    @discardableResult
    public func removeDevice(_ id: String) async throws -> Int {
        try await removeDeviceEverywhere(id).filter { $0.status == .done }.count
    }

    /// The device id of a leaf: the one pinned to it (`deviceLeaf`), else its signature key's,
    /// pinned from then on.
    func deviceID(of member: GroupMember, in session: GroupSession) -> String {
        let key = ClientSettings.deviceLeaf(session.id, member.leafIndex)
        if let data = try? store.setting(key), !data.isEmpty { return String(decoding: data, as: UTF8.self) }
        let id = AccountDevice.identifier(for: member.signatureKey)
        try? store.setSetting(key, Data(id.utf8))
        return id
    }

    // MARK: Steps

    /// The Notes chat's leaves; all are this account's.
    func linkedDevices() -> [AccountDevice] {
        guard let notes = notesSession() else { return [] }
        return notes.mls.members.filter { NostrIdentity.publicKey($0.credential) == publicKey }.map { member in
            let id = deviceID(of: member, in: notes)
            let mine = member.leafIndex == notes.mls.ownLeafIndex
            let stored: Data? = try? store.setting(ClientSettings.deviceLinked(id))
            let linkedAt = stored.flatMap { Int64(String(decoding: $0, as: UTF8.self)) }
            return AccountDevice(
                id: id, name: mine ? "this device" : "Marmot", addedAt: mine ? notes.stored.createdAt : linkedAt,
                isThisDevice: mine, isLinked: true, version: notes.stored.version)
        }
    }

    /// Key packages of `version` this account published from other installations: signed by us,
    /// valid (v2: account proof verified), not one we hold the private half of, not in the Notes
    /// chat already; one per signature key (a v1 key package goes out as two events).
    func waitingDevices(version: MarmotVersion) async throws -> [(device: AccountDevice, package: PeerKeyPackage)] {
        let events = await ownKeyPackageEvents()
        let notes = notesSession()
        let inNotes = Set(notes.map { session in
            session.mls.members.flatMap { [AccountDevice.identifier(for: $0.signatureKey), deviceID(of: $0, in: session)] }
        } ?? [])
        var seen: Set<String> = []
        var found: [(device: AccountDevice, package: PeerKeyPackage)] = []
        for event in events.sorted(by: { $0.createdAt > $1.createdAt }) where event.pubkey == publicKey {
            let package: PeerKeyPackage
            switch version {
            case .v1:
                guard let parsed = try? PeerKeyPackage(event: event, now: now()), parsed.version == .v1 else { continue }
                package = parsed
            case .v2:
                guard let parsed = try? PeerKeyPackage(v2Event: event, now: now()) else { continue }
                package = parsed
            }
            guard NostrIdentity.publicKey(package.keyPackage.leafNode.credential) == publicKey,
                (try? store.keyPackage(ref: package.ref)) == nil
            else { continue }
            let id = AccountDevice.identifier(for: package.keyPackage.leafNode.signatureKey)
            guard !inNotes.contains(id), seen.insert(id).inserted else { continue }
            // A linked device's fresh key package (same `d` tag) is that device, not a new one; so
            // is one of the installations that were in Notes before this device joined.
            if let slot = package.dTag, let data = try? store.setting(ClientSettings.deviceSlot(slot.value)),
                inNotes.contains(String(decoding: data, as: UTF8.self))
            {
                continue
            }
            if let slot = package.dTag, (try? store.setting(ClientSettings.linkedBeforeUs(slot.value))) != nil { continue }
            let client = event.tags.first { $0.name == "client" }?.value
            let name = client.map { UntrustedText.line($0, limit: 40) }.flatMap { $0.isEmpty ? nil : $0 } ?? "Marmot"
            let device = AccountDevice(id: id, name: name, addedAt: nil, isThisDevice: false, isLinked: false, version: version)
            found.append((device: device, package: package))
        }
        return found
    }
}
