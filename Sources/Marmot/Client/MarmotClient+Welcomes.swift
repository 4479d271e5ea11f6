import Foundation
import MLS
import Nostr
import NostrClient

/// MIP-02: incoming gift-wrapped Welcomes.
extension MarmotClient {
    /// Handles a kind-1059 event addressed to us: dedup by wrap id, unwrap (the seal's signer must be
    /// the rumor's author), check the kind-444 rumor, find our KeyPackage by the KeyPackageRef in the
    /// Welcome (not the `e` tag, as MDK), join with the ratchet tree from the GroupInfo and read the
    /// NostrGroupData. The seal's signer must then be a member of that group under its own identity
    /// and one of its admins (MIP-02, as MDK requires): anyone can wrap a Welcome, so nothing else
    /// ties the invitation to the person it claims to come from. The group is kept `pending`
    /// (unsubscribed, unlisted) and reported as `inviteReceived` until the user accepts or declines.
    func handleGiftWrap(_ event: Event) async {
        await acquire()
        defer { release() }
        guard !isProcessed(event.id) else { return }

        let unwrapped: GiftWrap.Unwrapped
        do {
            unwrapped = try GiftWrap.unwrap(event, recipient: keys.secretKey)
        } catch let error as GiftWrapError {
            return drop(event, .invalidWelcome(.giftWrap(error)), group: nil)
        } catch {
            return drop(event, .invalidWelcome(.giftWrap(.invalidWrap(.malformed("\(error)")))), group: nil)
        }
        guard unwrapped.rumor.kind == .welcome else {
            logger.debug("gift wrap \(event.id.hex) holds kind \(unwrapped.rumor.kind), not a Welcome")
            return record(event.id, .ignored, group: nil)
        }
        let incoming: IncomingWelcome
        do {
            incoming = try IncomingWelcome(rumor: unwrapped.rumor, wrapID: event.id, sender: unwrapped.sender)
        } catch {
            return drop(event, .invalidWelcome(error), group: nil)
        }

        let own: OwnKeyPackageRecord
        do {
            guard let found = try ownKeyPackage(for: incoming.welcome) else {
                return drop(event, .noMatchingKeyPackage, group: nil)
            }
            own = found
        } catch {
            return drop(event, .storage("\(error)"), group: nil)
        }

        let mls: MLSGroup
        let groupData: NostrGroupData
        do {
            mls = try MLSGroup.join(
                welcome: incoming.welcome, keyPackage: own.keyPackage, privateMaterial: own.privateMaterial,
                configuration: .marmot)
            groupData = try NostrGroupData(groupContextExtensions: mls.extensions)
        } catch {
            return drop(event, .joinFailed("\(error)"), group: nil)
        }
        if let why = Self.unprovenInviter(incoming.sender, of: mls, groupData: groupData, me: publicKey) {
            return drop(event, .untrustedWelcome(why), group: nil)
        }
        if sessions[mls.groupID] != nil {
            logger.info("welcome \(event.id.hex) for group \(mls.groupID), which we already have")
            return record(event.id, .ignored, group: mls.groupID)
        }
        if sessions.values.contains(where: { $0.stored.nostrGroupID == groupData.nostrGroupID }) {
            return drop(event, .joinFailed("another group already uses h \(groupData.nostrGroupID.hex)"), group: nil)
        }

        let members = mls.members.compactMap { NostrIdentity.publicKey($0.credential) }
        let others = members.filter { $0 != publicKey }
        // The inviter is proven by the seal: in an unnamed two-member group it is our 1:1 peer (a
        // named group of two is a group, as its creator made it one).
        let peer: PublicKey? = others == [incoming.sender] && groupData.name.isEmpty ? incoming.sender : nil
        let row = StoredGroup(
            mlsGroupID: mls.groupID, nostrGroupID: groupData.nostrGroupID, mlsState: mls.serialized(), epoch: mls.epoch,
            name: groupData.name, groupDescription: groupData.groupDescription, admins: groupData.admins,
            relays: groupData.relays, peer: peer, status: .pending, createdAt: now())
        let invite = InviteRecord(inviter: incoming.sender, wrapID: event.id, receivedAt: now())
        do {
            try store.saveGroup(row)
            try store.setSetting(ClientSettings.invite(mls.groupID), invite.encoded())
            sessions[mls.groupID] = GroupSession(mls: mls, stored: row, eventKeys: [])
            try storeCurrentEventKey(mls.groupID)
        } catch {
            sessions[mls.groupID] = nil
            try? store.deleteGroup(mlsGroupID: mls.groupID)
            try? store.setSetting(ClientSettings.invite(mls.groupID), nil)
            return drop(event, .storage("\(error)"), group: nil)
        }
        record(event.id, .processed, group: mls.groupID)
        markConsumed(own.keyPackage.reference())
        Task { [weak self] in await self?.rotateKeyPackage() }
        logger.info("invitation to group \(mls.groupID) (epoch \(mls.epoch)) from \(incoming.sender.hex)")
        if let pending = self.invite(mls.groupID) { emit(.inviteReceived(pending)) }
    }

    /// Why `sender` (the seal's signer) is not a proven inviter of the group we just joined, or nil
    /// when it is: it must hold a leaf whose credential is its own Nostr identity, be listed as an
    /// admin in the group data, and not be us.
    static func unprovenInviter(_ sender: PublicKey, of mls: MLSGroup, groupData: NostrGroupData, me: PublicKey) -> String? {
        guard sender != me else { return "the Welcome claims to come from ourselves" }
        let identities = mls.members.compactMap { NostrIdentity.publicKey($0.credential) }
        guard identities.count == mls.members.count else { return "a member's credential is not a Nostr identity" }
        guard identities.contains(sender) else { return "the sender \(sender.hex) is not a member of the group" }
        guard groupData.admins.contains(sender) else { return "the sender \(sender.hex) is not an admin of the group" }
        guard identities.filter({ $0 == me }).count == 1 else { return "our identity appears in more than one leaf" }
        return nil
    }

    /// The self-update MIP-02 asks of a new member, done once the group's stored events were read
    /// (so it does not race commits already on the relays). Kept as owed when it cannot be published.
    func performDueSelfUpdate(_ id: GroupID) async {
        let key = ClientSettings.selfUpdateDue(id)
        guard (try? store.setting(key)) != nil else { return }
        await acquire()
        defer { release() }
        guard sessions[id]?.mls.isActive == true, (try? store.setting(key)) != nil else { return }
        do {
            _ = try await selfUpdateExclusive(id)
            try store.setSetting(key, nil)
        } catch {
            logger.warning("post-join self-update of \(id) failed: \(error)")
            emit(.failure(chat: id, reason: "post-join self-update: \(error)"))
        }
    }
}
