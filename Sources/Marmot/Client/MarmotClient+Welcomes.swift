import Foundation
import MLS
import Nostr
import NostrClient

/// MIP-02: incoming gift-wrapped Welcomes.
extension MarmotClient {
    /// Handles a kind-1059 event addressed to us: dedup by wrap id, unwrap (the seal's signer must be
    /// the rumor's author), check the kind-444 rumor (v2's exact tag set, else v1's), find our
    /// KeyPackage by the KeyPackageRef in the Welcome (not the `e` tag, as MDK) — it must be of the
    /// rumor's protocol version —, join with the ratchet tree from the GroupInfo and read the group's
    /// metadata. The seal's signer must then be a member of that group under its own identity and one
    /// of its admins (MIP-02, as MDK requires; v2 also needs every required component supported and
    /// every leaf's account proof valid): anyone can wrap a Welcome, so nothing else ties the
    /// invitation to the person it claims to come from. The group is kept `pending` (unsubscribed,
    /// unlisted) and reported as `inviteReceived` until the user accepts or declines.
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
        if let why = invitationRoomRefusal(from: unwrapped.sender) {
            // Not recorded: once an invitation is answered or expires, a copy may be read again.
            return drop(event, .untrustedWelcome(why), group: nil, record: false)
        }
        // Each version's rumor check; v2 ignores tags it does not read, so a v1 rumor may pass both,
        // and the key package the Welcome is for says which version it is.
        let sender = unwrapped.sender
        var parsed: [MarmotVersion: Welcome] = [:]
        var v2Error: V2WelcomeError?
        var v1Error: WelcomeRumorError?
        do { parsed[.v2] = try V2WelcomeRumor.parse(unwrapped.rumor).welcome } catch { v2Error = error }
        do { parsed[.v1] = try IncomingWelcome(rumor: unwrapped.rumor, wrapID: event.id, sender: sender).welcome } catch { v1Error = error }
        guard let anyWelcome = parsed[.v2] ?? parsed[.v1] else {
            let looksV2 = !unwrapped.rumor.tags.contains { $0.name == "encoding" }
            if looksV2, let v2Error { return drop(event, .invalidV2Welcome(v2Error), group: nil) }
            return drop(event, v1Error.map { .invalidWelcome($0) } ?? .noMatchingKeyPackage, group: nil)
        }

        let own: OwnKeyPackageRecord
        let welcome: Welcome
        let version: MarmotVersion
        do {
            guard let found = try ownKeyPackage(for: anyWelcome), let matching = parsed[found.version] else {
                return drop(event, .noMatchingKeyPackage, group: nil)
            }
            (own, welcome, version) = (found, matching, found.version)
        } catch {
            return drop(event, .storage("\(error)"), group: nil)
        }

        let rules = version.rules
        let mls: MLSGroup
        let groupInfoSigner: LeafIndex
        let groupData: GroupMetadata
        let me = publicKey
        var refusal: String?
        do {
            (mls, groupInfoSigner) = try MLSGroup.joinReportingSigner(
                welcome: welcome, keyPackage: own.keyPackage, privateMaterial: own.privateMaterial,
                configuration: rules.configuration,
                screen: { context, tree, _ in
                    // The inviter check first: it costs one pass over the leaves, the tree's
                    // validation a signature per leaf (issue 26). Unreadable data is left to it.
                    guard let admins = (try? rules.metadata(of: context.extensions))?.admins else { return nil }
                    refusal = V1GroupRules.unprovenInviter(
                        sender, identities: tree.leaves.map { NostrIdentity.publicKey($0.leaf.credential) }, admins: admins, me: me)
                    return refusal
                })
            groupData = try rules.metadata(of: mls.extensions)
        } catch {
            if let refusal { return drop(event, .untrustedWelcome(refusal), group: nil) }
            return drop(event, .joinFailed("\(error)"), group: nil)
        }
        if let why = rules.unacceptableJoin(mls, sender: sender, groupInfoSigner: groupInfoSigner, me: publicKey) {
            return drop(event, .untrustedWelcome(why), group: nil)
        }
        // A group we were removed from (or left) may invite us again: the Welcome replaces the
        // inactive state, our old messages stay (MDK's `readd-after-eviction`). An invitation not
        // answered yet is replaced by one for a later epoch (the inviter's add lost a commit race
        // and was made again on the winning branch, issue 24). Any other group we hold is a duplicate.
        let former = sessions[mls.groupID]
        let newerInvitation = former.map { $0.stored.status == .pending && mls.epoch > $0.mls.epoch } ?? false
        if let former, former.stored.status != .inactive, former.mls.isActive, !newerInvitation {
            logger.info("welcome \(event.id.hex) for group \(mls.groupID), which we already have")
            return record(event.id, .ignored, group: mls.groupID)
        }
        if sessions.values.contains(where: { $0.id != mls.groupID && $0.stored.nostrGroupID == groupData.nostrGroupID }) {
            return drop(event, .joinFailed("another group already uses h \(groupData.nostrGroupID.hex)"), group: nil)
        }

        let members = mls.members.compactMap { NostrIdentity.publicKey($0.credential) }
        let others = members.filter { $0 != publicKey }
        // The inviter is proven by the seal: in an unnamed two-member group it is our 1:1 peer (a
        // named group of two is a group, as its creator made it one).
        // A Welcome sealed by our own account (another of our devices added us): the one other
        // account of an unnamed group is the peer (issue 29: a 1:1 chat keeps its peer).
        let otherAccounts = Set(others)
        let peer: PublicKey? =
            groupData.name.isEmpty && otherAccounts.count == 1 && (otherAccounts == [sender] || sender == publicKey)
            ? otherAccounts.first : nil
        var row = StoredGroup(
            mlsGroupID: mls.groupID, nostrGroupID: groupData.nostrGroupID, mlsState: Data(), epoch: mls.epoch,
            name: groupData.name, groupDescription: groupData.groupDescription, admins: groupData.admins,
            relays: groupData.relays, peer: peer, status: .pending, lastMessageAt: former?.stored.lastMessageAt,
            createdAt: now(), version: version)
        row.setState(mls)
        let invite = InviteRecord(inviter: sender, wrapID: event.id, receivedAt: now())
        do {
            // One unit: the group, its invitation, its key and its engine are kept together or not
            // at all (a failure leaves the store as it was, an earlier invitation included).
            try store.unitOfWork {
                // Kept until the answer: declining puts the inactive state back, accepting drops
                // it. A newer invitation keeps the state the one it replaces kept.
                var formerState: Data?
                if let former, former.stored.status == .inactive {
                    formerState = try former.mls.serialized()
                    try dropParked(mls.groupID)
                } else if former != nil {
                    formerState = try store.formerState(mlsGroupID: mls.groupID)
                }
                try store.saveGroup(row)
                try store.saveInvitation(invite.encoded(), formerState: formerState, mlsGroupID: mls.groupID)
                sessions[mls.groupID] = GroupSession(mls: mls, stored: row, eventKeys: [])
                try storeCurrentEventKey(mls.groupID)
                try anchorEngine(mls.groupID)
            }
        } catch {
            sessions[mls.groupID] = former
            return drop(event, .storage("\(error)"), group: nil)
        }
        record(event.id, .processed, group: mls.groupID)
        markConsumed(own.keyPackage.reference())
        requestKeyPackageRotation(version)
        logger.info(
            "invitation to \(version) group \(mls.groupID) (epoch \(mls.epoch)) from \(sender.hex)\(former == nil ? "" : newerInvitation ? ", replacing the earlier invitation" : ", which we had left")")
        if sender == publicKey && members.allSatisfy({ $0 == publicKey }) {
            let id = mls.groupID
            Task { [weak self] in await self?.joinOwnNotes(id) }
            return
        }
        if sender == publicKey {
            // Only this account's nsec seals such a Welcome: another of our devices added us
            // ("add my other devices", issue 29), so it is joined without asking.
            let id = mls.groupID
            Task { [weak self] in await self?.joinFromOwnDevice(id) }
            return
        }
        if let pending = self.invite(mls.groupID) { emit(.inviteReceived(pending)) }
    }

    /// The self-update MIP-02 asks of a new member, done once the group's stored events were read
    /// (so it does not race commits already on the relays). Kept as owed when it cannot be published.
    func performDueSelfUpdate(_ id: GroupID) async {
        let key = ClientSettings.selfUpdateDue(id)
        guard (try? store.setting(key)) != nil else { return }
        await acquire()
        defer {
            if let chat = sessions[id]?.chat { emit(.joinSettled(chat)) }
            release()
        }
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
