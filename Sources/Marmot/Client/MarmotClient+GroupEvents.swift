import Foundation
import MLS
import Nostr
import NostrClient

/// MIP-03: the incoming kind-445 pipeline (marmot-wire §5.5).
extension MarmotClient {
    /// What applying one group event did.
    struct Applied {
        let group: GroupID
        let outcome: ProcessedOutcome
        /// The group moved to a new epoch (parked events may open now).
        var newEpoch = false
        /// The group's `h` changed (resubscribe).
        var newNostrGroupID = false
        /// The group's relays changed to these (they join our pool).
        var newRelays: [RelayURL] = []
        /// We were removed or the group was disbanded: its relays may leave our pool.
        var closed = false
        /// Our messages to send again after switching to the other member's branch of a fork.
        var resend: [EventID] = []
        /// Our messages the group engine made again on the branch that won (or a send it queued
        /// behind our commit), sealed and stored: to deliver.
        var made: [(StoredMessage, Event)] = []
        /// Others' commits the group engine applied (epoch, committer), reported once the group
        /// took the state they lead to.
        var committed: [(epoch: UInt64, committer: PublicKey)] = []
        /// A SelfRemove proposal arrived: as admin we commit it.
        var proposalToCommit = false
        /// A proposal was kept pending (a parked commit that refers to it may apply now).
        var newProposal = false
        /// Another branch of an open fork was kept or grew (parked events of its epoch may open now).
        var branchGrew = false
        /// The group left its branch for another (messages held on other branches may open now).
        var switchedBranch = false
        /// Our group-data commit lost a race: this change is made again on the winning branch.
        var reissueGroupData: GroupDataIntent?
        /// Our membership commit lost a race: these adds and removals are made again on the winner.
        var reissueMembers: MembershipIntent?

        /// Notes what taking `data` over the stored group changes for the pool: a new `h` to
        /// subscribe to, new relays (a change already noted is kept).
        mutating func adopt(_ data: GroupMetadata, over stored: StoredGroup) {
            newNostrGroupID = newNostrGroupID || data.nostrGroupID != stored.nostrGroupID
            if data.relays != stored.relays, newRelays.isEmpty { newRelays = data.relays }
        }
    }

    /// Handles one kind-445 event: skipped when its id was already recorded (including our own
    /// published events), else applied and its outcome recorded, so no event is processed twice.
    func handleGroupEvent(_ event: Event) async {
        await acquire()
        defer { release() }
        let settling = sessionFor(event)?.id
        defer { if let settling { reportConvergence(settling) } }
        if !pendingCommitGroups.isEmpty, let group = settling, pendingCommitGroups.contains(group),
           let pending = try? loadPendingCommit(group), pending.event.id == event.id {
            // A relay returned our unconfirmed commit: it holds it, so it is in force.
            do {
                try mergeOwnCommit(pending, group: group)
                logger.info("our pending commit in \(group) came back from a relay: merged")
                for opened in retryParked(group) { await takeEffects(of: opened, retrying: false) }
            } catch {
                logger.warning("cannot merge our pending commit in \(group): \(error)")
            }
            return
        }
        guard !isProcessed(event.id) else { return }
        do {
            let applied = try applyGroupEvent(event)
            record(event.id, applied.outcome, group: applied.group)
            noteSettling(applied.group, applied: applied, dropped: nil)
            await takeEffects(of: applied)
        } catch {
            let group = sessionFor(event)?.id
            if error.waitsForOtherEvents, let group {
                // Not recorded as processed: anyone who knows the `h` tag can push parked events out
                // with junk, and an evicted genuine one must be tried again (fetched once the group
                // moves, `refetchPushedOut`, or at the next catch-up) instead of being lost for good
                // (issue 24 N8).
                drop(event, error, group: group, record: false)
                park(event, group: group, reason: error)
            } else {
                drop(event, error, group: group)
                if let group { noteSettling(group, applied: nil, dropped: error) }
            }
        }
    }

    /// Does what an applied event asks beyond the group's state: the relay set and subscription
    /// for new group data, parked events that may open now (whose own effects follow, so a branch
    /// switch one of them makes sends our messages again too), our messages sent again on a new
    /// branch, a pending leave to commit, and our lost changes made again.
    /// Those opened here are tried until none opens (`retryParked`), so theirs do not retry again.
    func takeEffects(of applied: Applied, retrying: Bool = true) async {
        if let chat = sessions[applied.group]?.chat {
            for commit in applied.committed { emit(.commitApplied(chat, epoch: commit.epoch, committer: commit.committer)) }
        }
        if !applied.newRelays.isEmpty || applied.closed { await syncPoolRelays() }
        if applied.newNostrGroupID { await resubscribe(applied.group) }
        // Before any commit of our own: a parked commit of that proposal may apply now.
        let retry = retrying && (applied.newEpoch || applied.newProposal || applied.branchGrew)
        let opened = retry ? retryParked(applied.group, heldToo: applied.switchedBranch) : []
        // Events pushed out of the parked list may open now too: fetched again (N8).
        if retry, let since = parked[applied.group]?.takePushedOut(heldToo: applied.switchedBranch) {
            refetchPushedOut(applied.group, since: since)
        }
        if !applied.resend.isEmpty { await resend(applied.resend, in: applied.group) }
        for (message, event) in applied.made { _ = await deliver(message, event: event) }
        // During a catch-up the commit of that leave may be among the stored events still to
        // come: it is committed, if still pending, once they are read (`flush`).
        if applied.proposalToCommit, !feeds.values.contains(where: { $0.flushing && $0.covers(applied.group) }) {
            await commitPendingSelfRemoves(applied.group)
        }
        if let data = applied.reissueGroupData { await reissue(data, in: applied.group) }
        if let members = applied.reissueMembers { reissue(members, in: applied.group) }
        for next in opened { await takeEffects(of: next, retrying: false) }
    }

    func sessionFor(_ event: Event) -> GroupSession? {
        guard let h = event.tags.first(where: { $0.name == "h" })?.value, let id = try? NostrGroupID(hex: h) else { return nil }
        return sessions.values.first { $0.stored.nostrGroupID == id }
    }

    /// §5.5 steps 2-5: group by `h`, then the peeler (`GroupEventPeeler`: its version's envelope
    /// checks, decryption with the current, retained, then alternate branches' keys, the MLS header
    /// and group id), then by content: application → rumor with author check → message; commit →
    /// authorization, snapshot, merge, new epoch key; proposal → kept pending; our own handshake
    /// echoes → nothing. A commit for a past epoch goes to the race rule (§5.7); a message that
    /// opened only on an alternate branch to `follow`.
    func applyGroupEvent(_ event: Event) throws(DropReason) -> Applied {
        guard let session = sessionFor(event) else {
            throw GroupEventPeeler.dropUnknown(event, now: now(), window: options.eventWindow)
        }
        if engines[session.id] != nil { return try applyEngineEvent(event, session: session) }
        let branches = Array((branchBooks[session.id]?.alternates ?? []).reversed())
        let peeled = try peeler(for: session, alternates: branches).peel(event, now: now())
        if let opened = peeled.alternate,
           let alternate = branches.first(where: { $0.isBranch(forkEpoch: opened.forkEpoch, tip: opened.commit) })
        {
            return try follow(alternate, message: peeled.message, epoch: peeled.epoch, event: event, session: session)
        }
        if peeled.contentType == .commit, peeled.epoch < session.mls.epoch {
            return try resolveCompetingCommit(event, message: peeled.message, epoch: peeled.epoch, session: session)
        }
        let result: ProcessedMessage
        let next: MLSGroup
        do {
            (result, next) = try session.mls.processing(peeled.message)
        } catch {
            throw .mls(error)
        }
        return try accept(result, message: peeled.message, next: next, event: event, session: session)
    }

    /// The peeler of `session`'s group: its rules and ids, the applied branch's keys (current, then
    /// retained), then the keys of `alternates` in that order (an alternate whose key cannot be
    /// derived is left out).
    func peeler(for session: GroupSession, alternates: [AlternateBranch]) -> GroupEventPeeler {
        var keys = session.eventKeys.map { PeelKey($0.key, from: .epoch($0.epoch)) }
        for branch in alternates {
            let source = PeelKeySource.alternate(forkEpoch: branch.forkEpoch, commit: branch.tipCommit)
            if let key = try? branch.eventKey() { keys.append(PeelKey(key, from: source)) }
            // Then the states on its path, newest first (messages sent before its later commits).
            for epoch in branch.pathKeys.keys.sorted(by: >) { keys.append(PeelKey(branch.pathKeys[epoch]!, from: source)) }
        }
        return GroupEventPeeler(
            rules: session.rules, nostrGroupID: session.stored.nostrGroupID, groupID: session.id, keys: keys,
            window: options.eventWindow)
    }

    /// Takes in what MLS made of a message on the group's current branch.
    func accept(
        _ result: ProcessedMessage, message: MLSMessage, next: MLSGroup, event: Event, session: GroupSession
    ) throws(DropReason) -> Applied {
        switch result {
        case .application(let application):
            confirmBranch(session.id, epoch: application.epoch, rules: session.rules)
            return try acceptApplication(application, next: next, event: event, session: session)
        case .commit(let summary):
            confirmBranch(session.id, epoch: session.mls.epoch, rules: session.rules)
            return try acceptCommit(summary, message: message, next: next, event: event, before: session.mls, session: session)
        case .proposal(let proposal):
            let fromSender = session.mls.proposals.filter { $0.sender == proposal.sender }.count
            guard fromSender < options.pendingProposalsPerSender else {
                throw .malformedMessage("more than \(options.pendingProposalsPerSender) pending proposals from one sender")
            }
            guard session.mls.proposals.count < options.pendingProposalLimit else {
                throw .malformedMessage("more than \(options.pendingProposalLimit) pending proposals in the group")
            }
            try persistOrDrop(next, session.id)
            logger.info("proposal \(proposal.proposal.type) pending in \(session.id)")
            var applied = Applied(group: session.id, outcome: .processed)
            applied.proposalToCommit = session.rules.willCommit(proposal, in: next)
            applied.newProposal = true
            return applied
        case .ownCommit, .ownProposal:
            return Applied(group: session.id, outcome: .own)
        }
    }

    private func acceptApplication(
        _ application: ApplicationMessage, next: MLSGroup, event: Event, session: GroupSession
    ) throws(DropReason) -> Applied {
        // The message key is used up whatever the rumor holds: keep the ratchet's deletion.
        do {
            try persistRatchets(next, for: session.id)
        } catch {
            throw .storage("\(error)")
        }
        guard let sender = NostrIdentity.publicKey(application.credential) else {
            throw .invalidRumor(.malformed("sender credential is not a Nostr key"))
        }
        let rumor = try session.rules.rumor(application.data, sender: sender)
        try keepReceived(rumor, sender: sender, leaf: application.sender, epoch: application.epoch, outerEventID: event.id, session: session)
        if sender != publicKey { noteReceivedOnBranch(rumor.id, in: session) }
        noteWitness(sender, epoch: application.epoch, in: session.id)
        return Applied(group: session.id, outcome: .processed)
    }

    /// Keeps a message of the group that opened on its selected state (`rumor`, by `sender`, read
    /// in `epoch`): a device announcement is taken, anything else stored (unless already past its
    /// expiry) and shown.
    func keepReceived(
        _ rumor: ChatRumor, sender: PublicKey, leaf: LeafIndex, epoch: UInt64, outerEventID: EventID?, session: GroupSession
    ) throws(DropReason) {
        if rumor.kind == DeviceAnnouncement.kind {
            // Our devices' control message (issue 29): only our own account, only in Notes.
            guard session.id == notesGroupID(), sender == publicKey else {
                throw .invalidRumor(.malformed("a device announcement outside this account's Notes chat"))
            }
            takeAnnouncement(rumor.content, from: leaf, in: session.id)
            return
        }
        var message = StoredMessage(
            rumor: rumor, mlsGroupID: session.id, isMine: sender == publicKey,
            deliveryState: sender == publicKey ? .sent : .received, outerEventID: outerEventID)
        message.epoch = epoch
        message.isNoteFromAnotherDevice = sender == publicKey && session.id == notesGroupID()
        // Retention of the state it was sent in (the one that opened it); one already past its
        // expiry is not kept at all (MDK `AppPayloadRetentionExpired`).
        message.expiresAt = expiry(createdAt: rumor.createdAt, in: session)
        if let expiresAt = message.expiresAt, expiresAt <= now() {
            logger.info("message \(rumor.id.hex) in \(session.id) arrived after its expiry; not kept")
            return
        }
        do {
            try store.saveMessage(message)
        } catch {
            throw .storage("\(error)")
        }
        noteExpiry(message.expiresAt)
        noteModeration(&message, in: session)
        noteMediaEpoch(message, epoch: epoch)
        message = withAttachments([message])[0]
        refreshRow(session.id)
        if let chat = sessions[session.id]?.chat { emit(.messageReceived(chat, message)) }
    }

    /// Applies another member's commit: authorization, the epoch snapshot for the race rule, the new
    /// state, the new epoch's group-event key.
    /// `raceAnchor` is the first applied wrapper's created_at when a competitor replaces the commit
    /// of that epoch (the v1 back-dating bound stays measured from it).
    func acceptCommit(
        _ summary: CommitSummary, message: MLSMessage, next: MLSGroup, event: Event, before: MLSGroup, session: GroupSession,
        raceAnchor: Int64? = nil, shown: GroupMetadata? = nil
    ) throws(DropReason) -> Applied {
        try session.rules.authorize(summary, message: message, before: before, after: next)
        let groupData = summary.newExtensions == nil ? nil : session.rules.metadataIfValid(next.extensions)
        let key = session.rules.orderingKey(summary, message: message, before: before)
        do {
            try saveSnapshot(
                EpochSnapshot(
                    epoch: before.epoch, state: before.serialized(), commit: event, orderingKey: key,
                    anchorCreatedAt: raceAnchor),
                group: session.id)
            // Removed, or the group was disbanded (v2): nothing more can be sent there.
            let closed = summary.removedSelf || groupData?.disbanded == true
            try persist(next, for: session.id, groupData: groupData, status: closed ? .inactive : nil)
            try storeCurrentEventKey(session.id)
            if pendingCommitGroups.contains(session.id), try loadPendingCommit(session.id)?.epoch == before.epoch {
                // Another member's commit for the epoch took effect first; ours stays only as the
                // alternate branch, adopted if the others turn out to be on it.
                try savePendingCommit(nil, group: session.id)
            }
        } catch {
            throw .storage("\(error)")
        }
        noteDeviceLeaves(summary, in: session.id)
        let committer = before.member(at: summary.committer).flatMap { NostrIdentity.publicKey($0.credential) }
        // The lines go from what was shown: `before`'s data, or on a rollback the branch we leave
        // (`shown`), to what this commit leads to (issue 24, N6).
        noteMembershipChanges(
            summary, committer: committer, previous: shown ?? session.rules.metadataIfValid(before.extensions),
            current: shown == nil ? groupData : session.rules.metadataIfValid(next.extensions), commit: event,
            group: session.id)
        logger.info("commit from \(committer?.hex ?? "?") moved \(session.id) to epoch \(next.epoch)")
        if let chat = sessions[session.id]?.chat { emit(.commitApplied(chat, epoch: next.epoch, committer: committer)) }
        var applied = Applied(group: session.id, outcome: .processed, newEpoch: true)
        applied.closed = summary.removedSelf || groupData?.disbanded == true
        if let groupData { applied.adopt(groupData, over: session.stored) }
        return applied
    }

    /// Makes `intent` (what our lost commit changed) again on the winning branch, applied to its
    /// data, if we are still an admin there and it still changes something; admins we did not
    /// promote or demote are left as the winner set them (issue 24, N4).
    func reissue(_ intent: GroupDataIntent, in id: GroupID) async {
        guard let session = sessions[id], isAdmin(session), let current = session.metadata else {
            logger.info("our lost group-data change in \(id) is not made again: we are no admin on the winning branch")
            return
        }
        let members = Set(session.memberKeys)
        var target = intent.applied(to: current)
        target.admins = target.admins.filter(members.contains)
        guard target != current else { return }
        let admins = intent.changesAdmins && target.admins != current.admins ? target.admins : nil
        guard admins == nil || admins?.isEmpty == false else { return }
        do {
            _ = try await updateGroupDataExclusive(
                id, name: intent.name, description: intent.groupDescription, admins: admins, image: intent.image)
        } catch {
            logger.warning("could not issue our group-data change in \(id) again: \(error)")
            emit(.failure(chat: id, reason: "a change to the group was overtaken and could not be made again: \(error)"))
        }
    }

    /// Makes our lost adds and removals again on the branch that won, if we are still an admin there.
    /// Adding fetches key packages, so it runs once this event's handling has released the group.
    func reissue(_ intent: MembershipIntent, in id: GroupID) {
        guard let session = sessions[id], isAdmin(session) else {
            logger.info("our lost membership change in \(id) is not made again: we are no admin on the winning branch")
            return
        }
        Task {
            do {
                let members = Set(try self.chat(id)?.members ?? [])
                let remove = intent.remove.filter(members.contains)
                if !remove.isEmpty { _ = try await self.removeMembers(remove, from: id) }
                let add = intent.add.filter { !members.contains($0) }
                if !add.isEmpty { _ = try await self.addMembers(add, to: id) }
            } catch {
                self.logger.warning("could not make our membership change in \(id) again: \(error)")
                self.emit(.failure(chat: id, reason: "a change to the members was overtaken and could not be made again: \(error)"))
            }
        }
    }

    func persistOrDrop(_ mls: MLSGroup, _ id: GroupID) throws(DropReason) {
        do {
            try persist(mls, for: id)
        } catch {
            throw .storage("\(error)")
        }
    }

    // MARK: Parked events

    /// Keeps an event that did not decrypt, or opened and waits (`reason`), to try again after the
    /// group's next commit (`ParkedEvents`: at most `parkedEventLimit` per group, those that never
    /// opened go first), stored so a restart does not lose it.
    private func park(_ event: Event, group: GroupID, reason: DropReason) {
        if parked[group, default: newParked()].park(event, reason: reason) { saveParked(group) }
    }

    /// Fetches group `id`'s events from `since` on from its relays again, once this event's
    /// handling released the group, and takes in those not yet processed, oldest first: parked
    /// events that a flood pushed out (N8) open now that the group moved, without waiting for the
    /// next catch-up. One fetch per group at a time; events pushed out meanwhile are fetched next.
    func refetchPushedOut(_ id: GroupID, since: Int64) {
        refetchFrom[id] = min(refetchFrom[id] ?? since, since)
        guard refetching.insert(id).inserted else { return }
        Task {
            defer { refetching.remove(id) }
            while started, let since = refetchFrom.removeValue(forKey: id), let session = sessions[id] {
                let filter = Filter(kinds: [.groupMessage], tags: ["h": [session.stored.nostrGroupID.hex]], since: since)
                let events = await fetch(filter, on: pool, relays: route(id), lookup: false).filter { !isProcessed($0.id) }
                logger.info("fetched \(events.count) events of \(id) again from \(since): parked events had been pushed out")
                for event in events.sorted(by: Self.chronological) { await handle(event) }
            }
        }
    }

    /// An empty parked list with the client's bounds.
    func newParked() -> ParkedEvents {
        ParkedEvents(limit: options.parkedEventLimit, byteLimit: options.parkedEventBytes)
    }

    /// Writes what changed in a group's parked events to its rows (`parked_events_v2`).
    func saveParked(_ group: GroupID) {
        guard let changes = parked[group]?.takeChanges(), !changes.isEmpty else { return }
        do {
            try engineStore.writeParked(changes, mlsGroupID: group)
        } catch {
            logger.warning("cannot store the parked events of \(group): \(error)")
        }
    }

    /// A group's parked events as the last run left them: its rows, or, in a home written before
    /// them, the settings record, moved to rows in one transaction (`v20-parked-events`).
    func loadParked(_ group: GroupID) -> ParkedEvents {
        do {
            let store = try engineStore
            if let data = try store.setting(ClientSettings.parked(group)) {
                var list = ParkedEvents(limit: options.parkedEventLimit, byteLimit: options.parkedEventBytes, record: data)
                list.rewriteAll()
                let changes = list.takeChanges()
                try store.unitOfWork {
                    try store.deleteParkedEvents(mlsGroupID: group)
                    try store.writeParked(changes, mlsGroupID: group)
                    try store.setSetting(ClientSettings.parked(group), nil)
                }
                return list
            }
            var list = ParkedEvents(
                limit: options.parkedEventLimit, byteLimit: options.parkedEventBytes, rows: try store.parkedEvents(mlsGroupID: group))
            if list.hasChanges { try store.writeParked(list.takeChanges(), mlsGroupID: group) }
            return list
        } catch {
            logger.warning("cannot read the parked events of \(group): \(error)")
            return newParked()
        }
    }

    /// Forgets a group's parked events, in memory and stored (rows and a record of before them).
    func dropParked(_ group: GroupID) throws {
        parked[group] = nil
        try store.setSetting(ClientSettings.parked(group), nil)
        try engineStore.deleteParkedEvents(mlsGroupID: group)
    }

    /// Tries the group's parked events again, oldest first, until a pass opens none; returns what
    /// each that opened did, for its effects (`takeEffects`). Messages held on a branch that is not
    /// selected are tried only once the group changed branches (`heldToo`, or an event opened here
    /// that switched it). The parked record is written once at the end, not for each event taken
    /// out (each write is the whole list): an event recorded as processed before a crash left it
    /// in the record is taken out unopened next time.
    func retryParked(_ group: GroupID, heldToo: Bool = false) -> [Applied] {
        defer { reportConvergence(group) }
        var opened: [Applied] = []
        var progress = true, switched = heldToo, changed = false
        defer { if changed { saveParked(group) } }
        while progress, let list = parked[group], !list.isEmpty {
            progress = false
            for event in list.retryOrder(heldToo: switched) {
                guard !isProcessed(event.id) else {
                    parked[group]?.remove(event.id)
                    changed = true
                    continue
                }
                do {
                    let applied = try applyGroupEvent(event)
                    parked[group]?.remove(event.id)
                    changed = true
                    record(event.id, applied.outcome, group: applied.group)
                    noteSettling(group, applied: applied, dropped: nil)
                    logger.info("parked event \(event.id.hex) opened after a commit or proposal")
                    opened.append(applied)
                    switched = switched || applied.switchedBranch
                    progress = true
                } catch where error.waitsForOtherEvents {
                    noteWaiting(event, reason: error, group: group)
                    continue
                } catch {
                    parked[group]?.remove(event.id)
                    changed = true
                }
            }
        }
        return opened
    }

    private func resubscribe(_ group: GroupID) async {
        if let id = feeds.first(where: { $0.value.target == .group(group) })?.key, let feed = feeds.removeValue(forKey: id) {
            feed.tasks.forEach { $0.cancel() }
            await pool.unsubscribe(id)
        }
        await subscribe(.group(group))
    }
}
