import Foundation
import MLS
import Nostr
import NostrClient

extension ClientSettings {
    /// The MLS group id (raw bytes) of this account's Notes chat on this device.
    static let notesGroup = "client.notes_group"
}

/// Notes to self: a group whose members are only this account's devices (issue 29; MDK's
/// multi-device exploration: each device its own leaf under the same Nostr identity).
extension MarmotClient {
    /// The Notes chat, if this device has one (made by `openNotes`, or joined from another device).
    public func notesChat() -> Chat? {
        try? loadStoredGroups()
        return notesSession()?.chat
    }

    /// Whether `id` is this device's Notes chat.
    public func isNotes(_ id: GroupID) -> Bool { notesGroupID() == id }

    /// Whether every member of the group is this account (its Notes chat, or an earlier one).
    public func isSelfOnly(_ id: GroupID) -> Bool {
        guard let keys = sessions[id]?.memberKeys, !keys.isEmpty else { return false }
        return keys.allSatisfy { $0 == publicKey }
    }

    /// The Notes chat, made on first use: an MLS group with only this device's leaf, our relays as
    /// its relays and us as admin, speaking v2 when we publish v2 key packages (our other devices
    /// then do too) and v1 otherwise. Nothing is published: a group of one needs no Welcome, and
    /// the first note is its first event. A Notes chat this device was removed from is replaced.
    public func openNotes() async throws -> Chat {
        try requireStarted()
        try loadStoredGroups()
        if let current = notesSession(), current.mls.isActive, current.stored.status == .active { return current.chat }
        let version: MarmotVersion = options.keyPackageVersions.contains(.v2) ? .v2 : .v1
        await acquire()
        if let current = notesSession(), current.mls.isActive, current.stored.status == .active {
            release()
            return current.chat
        }
        let groupID: GroupID
        do {
            groupID = try buildSelfGroup(version: version)
            try storage { try store.setSetting(ClientSettings.notesGroup, groupID.bytes) }
        } catch {
            release()
            throw error
        }
        await syncPoolRelays()
        await subscribe(.group(groupID))
        release()
        logger.info("notes chat \(groupID) created (\(version))")
        return try session(groupID).chat
    }

    func notesGroupID() -> GroupID? {
        guard let data = try? store.setting(ClientSettings.notesGroup), !data.isEmpty else { return nil }
        return GroupID(data)
    }

    func notesSession() -> GroupSession? {
        notesGroupID().flatMap { sessions[$0] }
    }

    /// Builds and stores a group of `version` with only our leaf (epoch 0, no commit).
    private func buildSelfGroup(version: MarmotVersion) throws -> GroupID {
        let groupID = GroupID(CipherSuiteProvider.mls128X25519.randomBytes(16))
        let metadata = GroupMetadata(nostrGroupID: .random(), name: "", description: "", admins: [publicKey], relays: relays)
        let mls: MLSGroup
        do {
            mls = try version.rules.foundingState(groupID: groupID, keys: keys, metadata: metadata, invitees: [])
        } catch let error as GroupError {
            throw MarmotClientError.mls(error)
        } catch {
            throw MarmotClientError.encoding("notes group: \(error)")
        }
        let row = StoredGroup(
            mlsGroupID: groupID, nostrGroupID: metadata.nostrGroupID, mlsState: Data(), epoch: mls.epoch,
            name: "", groupDescription: "", admins: [publicKey], relays: relays, peer: nil, status: .active,
            createdAt: now(), version: version)
        try registerNewGroup(row, mls: mls)
        // Our device id is pinned to our leaf now, before any key update changes its key.
        if let session = sessions[groupID] { for member in session.mls.members { _ = deviceID(of: member, in: session) } }
        return groupID
    }

    /// A Welcome sealed by our own key (only this account's nsec signs such a seal) into a group
    /// whose members are all this account: another device linked us into its Notes chat. Joined
    /// without asking; it becomes our Notes chat unless ours already has at least as many devices.
    func joinOwnNotes(_ id: GroupID) async {
        if let current = notesSession(), current.id != id, current.mls.isActive, current.stored.status == .active,
            current.memberKeys.count >= (sessions[id]?.memberKeys.count ?? 0)
        {
            logger.info("welcome from another device into \(id); our notes chat \(current.id) has as many devices, kept")
        } else {
            do { try store.setSetting(ClientSettings.notesGroup, id.bytes) } catch {
                logger.error("cannot record the notes chat \(id): \(error)")
            }
        }
        // Every leaf's device id is pinned as the Welcome has it, before our post-join key update
        // and theirs: our leaf still has the key package's key, which is the id the linking
        // device gave us.
        if let pending = sessions[id] { for member in pending.mls.members { _ = deviceID(of: member, in: pending) } }
        do {
            _ = try await acceptInvite(id)
            logger.info("joined notes chat \(id) from another device of this account")
            await recordLinkedSlots()
        } catch {
            logger.warning("cannot join the notes chat \(id) from another device: \(error)")
            emit(.failure(chat: id, reason: "joining notes from another device: \(error)"))
        }
    }

    /// Records the `d` tags under which the account's other installations publish key packages at
    /// the moment we joined Notes from one of them: those installations were linked before us, and
    /// their leaves cannot be matched to their key packages here (the linking device alone knows the
    /// match), so without this they would be offered as waiting and linked a second time. A device
    /// that was waiting but not yet linked then is offered on the devices that were linked before it.
    func recordLinkedSlots() async {
        let ours = Set(ownDTags().map { $0.lowercased() })
        for event in await ownKeyPackageEvents() {
            guard let slot = event.tags.first(where: { $0.name == "d" })?.value?.lowercased(), !slot.isEmpty, !ours.contains(slot)
            else { continue }
            try? store.setSetting(ClientSettings.linkedBeforeUs(slot), Data("1".utf8))
        }
    }
}
