import Foundation
import MLS
import Nostr
import NostrClient

extension ClientSettings {
    /// A key package of one of our devices that this device added to a group: consumed by then.
    static func deviceKeyPackageUsed(_ ref: KeyPackageRef) -> String { "client.device_kp_used.\(ref)" }
}

/// What one group made of a device change (issue 29: remove a device from every group, add our
/// other devices to a chat).
public struct DeviceGroupResult: Sendable, Hashable {
    public enum Status: Sendable, Hashable {
        /// The device's leaf left the group (or, when adding, joined it).
        case done
        /// This device may not commit it there: we are not an admin (MIP-03 v1, v2 authorization).
        case notAllowed
        /// The commit was tried and failed (why, one line).
        case failed(String)
    }

    public let group: GroupID
    public let isNotes: Bool
    public let status: Status

    public init(group: GroupID, isNotes: Bool, status: Status) {
        self.group = group
        self.isNotes = isNotes
        self.status = status
    }
}

/// Our other devices in chats other than Notes (issue 29): a device's leaf in a group is tied to it
/// by the pin `ClientSettings.deviceLeaf` set when this device added it, or when the device told us
/// in Notes (`DeviceAnnouncement`), whoever added it (in Notes, by its key package's signature key). Admin rights belong to the account (MIP-01 admin list of npubs), so every
/// device of an admin account may Add and Remove (v1 MIP-03, v2 `V2CommitAuthorization`).
extension MarmotClient {
    /// Removes device `id`'s leaf from every group where this device may: the Notes chat always
    /// (its admin is our account), other groups where our account is an admin. A group where the
    /// device has a leaf but we are no admin reports `.notAllowed`; a failed commit `.failed`.
    /// Leaves of our account that no pin ties to the device (it has not announced them yet) are
    /// left alone: nothing else tells which installation they are.
    public func removeDeviceEverywhere(_ id: String) async throws -> [DeviceGroupResult] {
        try requireStarted()
        let wanted = id.lowercased()
        await acquire()
        defer { release() }
        guard let notes = notesSession(), notes.stored.status == .active, notes.mls.isActive,
            let notesLeaf = notes.mls.members.first(where: { deviceID(of: $0, in: notes) == wanted })
        else { throw DeviceError.unknownDevice(id) }
        if notesLeaf.leafIndex == notes.mls.ownLeafIndex { throw DeviceError.thisDevice }

        let others = sessions.values.filter { $0.id != notes.id }.sorted { $0.id.description < $1.id.description }
        var results: [DeviceGroupResult] = []
        for session in [notes] + others where session.stored.status == .active && session.mls.isActive {
            let leaves = session.mls.members.filter { member in
                member.leafIndex != session.mls.ownLeafIndex && NostrIdentity.publicKey(member.credential) == publicKey
                    && (session.id == notes.id
                        ? deviceID(of: member, in: session) == wanted : pinnedDeviceID(member, in: session.id) == wanted)
            }.map(\.leafIndex)
            guard !leaves.isEmpty else { continue }
            let isNotes = session.id == notes.id
            guard isNotes || isAdmin(session) else {
                results.append(DeviceGroupResult(group: session.id, isNotes: isNotes, status: .notAllowed))
                continue
            }
            do {
                _ = try await commitExclusive(session.id) { mls, filter throws(GroupError) in
                    try mls.commit(removing: leaves, proposals: [], proposalFilter: filter)
                }
                for leaf in leaves { try? store.setSetting(ClientSettings.deviceLeaf(session.id, leaf), nil) }
                results.append(DeviceGroupResult(group: session.id, isNotes: isNotes, status: .done))
                logger.info("device \(wanted) removed from \(session.id)")
            } catch {
                logger.warning("device \(wanted) not removed from \(session.id): \(error)")
                results.append(DeviceGroupResult(group: session.id, isNotes: isNotes, status: .failed(UntrustedText.line("\(error)", limit: 200))))
            }
        }
        return results
    }

    /// Adds this account's other linked devices (the Notes chat's other leaves of our npub) that
    /// are not in group `id` yet, with an ordinary Add of their newest key package (found under the
    /// `d` tag they were linked from; v2: `PeerKeyPackage(v2Event:)` verifies its 0x8009 proof),
    /// then one Welcome each. Needs our account to be an admin of the group. Returns the ids of the
    /// devices added; throws `DeviceError.noOtherDevice` when there is none to add.
    @discardableResult
    public func addMyDevices(to id: GroupID) async throws -> [String] {
        try requireStarted()
        let target = try session(id)
        guard target.mls.isActive, target.stored.status == .active else { throw MarmotClientError.chatInactive(id) }
        guard isAdmin(target) else { throw MarmotClientError.notAdmin(id) }
        guard let notes = notesSession() else { throw DeviceError.noOtherDevice }
        let linked = Set(
            notes.mls.members.filter {
                $0.leafIndex != notes.mls.ownLeafIndex && NostrIdentity.publicKey($0.credential) == publicKey
            }.map { deviceID(of: $0, in: notes) })
        let present = Set(
            target.mls.members.filter { NostrIdentity.publicKey($0.credential) == publicKey }.compactMap { pinnedDeviceID($0, in: id) })
        let missing = linked.subtracting(present)
        guard !missing.isEmpty else { throw DeviceError.noOtherDevice }

        var packages: [String: PeerKeyPackage] = [:]
        for event in await ownKeyPackageEvents().sorted(by: { $0.createdAt > $1.createdAt }) where event.pubkey == publicKey {
            let parsed: PeerKeyPackage?
            switch target.stored.version {
            case .v1: parsed = (try? PeerKeyPackage(event: event, now: now())).flatMap { $0.version == .v1 ? $0 : nil }
            case .v2: parsed = try? PeerKeyPackage(v2Event: event, now: now())
            }
            guard let package = parsed, NostrIdentity.publicKey(package.keyPackage.leafNode.credential) == publicKey,
                (try? store.keyPackage(ref: package.ref)) == nil
            else { continue }
            // The key package a device was linked with, or one we added it with already, is
            // consumed: its device answers only a fresh one (same `d` tag, after its rotation).
            let keyID = AccountDevice.identifier(for: package.keyPackage.leafNode.signatureKey)
            guard !linked.contains(keyID), (try? store.setting(ClientSettings.deviceKeyPackageUsed(package.ref))) == nil else {
                continue
            }
            guard let slot = try? store.setting(ClientSettings.deviceSlot(Self.slot(of: package))) else { continue }
            let device = String(decoding: slot, as: UTF8.self)
            guard missing.contains(device), packages[device] == nil else { continue }
            packages[device] = package
        }
        guard !packages.isEmpty else {
            throw MarmotClientError.encoding("no key package of devices \(missing.sorted().joined(separator: ", ")) on the relays")
        }
        let chosen = packages.sorted { $0.key < $1.key }

        await acquireSettled(id)
        var welcome: Welcome?
        do {
            _ = try await commitExclusive(id) { mls, filter throws(GroupError) in
                let pending = try mls.commit(adding: chosen.map(\.value.keyPackage), proposalFilter: filter)
                welcome = pending.welcome
                return pending
            }
        } catch {
            release()
            throw error
        }
        for (device, package) in chosen {
            try? store.setSetting(ClientSettings.deviceKeyPackageUsed(package.ref), Data([1]))
            let key = package.keyPackage.leafNode.signatureKey
            if let leaf = sessions[id]?.mls.members.first(where: { $0.signatureKey == key }) {
                try? store.setSetting(ClientSettings.deviceLeaf(id, leaf.leafIndex), Data(device.utf8))
            }
        }
        let groupRelays = sessions[id]?.stored.relays ?? relays
        release()
        guard let welcome else { throw MarmotClientError.encoding("the Add commit produced no Welcome") }
        _ = try await sendWelcomes(welcome, to: chosen.map(\.value), relays: groupRelays, group: id)
        logger.info("added devices \(chosen.map(\.key).joined(separator: ", ")) to \(id)")
        await announceThisDevice()
        return chosen.map(\.key)
    }

    /// The device id pinned to a leaf of a group other than Notes, if any.
    func pinnedDeviceID(_ member: GroupMember, in group: GroupID) -> String? {
        guard let data = try? store.setting(ClientSettings.deviceLeaf(group, member.leafIndex)), !data.isEmpty else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

extension MarmotClient {
    /// Joins a group another device of this account added us to (its Welcome sealed by our nsec).
    func joinFromOwnDevice(_ id: GroupID) async {
        do {
            _ = try await acceptInvite(id)
            logger.info("joined \(id), added by another device of this account")
        } catch {
            logger.warning("cannot join \(id) from another device: \(error)")
            emit(.failure(chat: id, reason: "joining a chat from another device: \(error)"))
        }
    }
}
