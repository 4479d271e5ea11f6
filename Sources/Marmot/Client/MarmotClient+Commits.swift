import Foundation
import MLS
import Nostr
import NostrClient

/// Our own commits (publish first, merge on relay OK; marmot-wire §5.6) and competing commits
/// (§5.7).
extension MarmotClient {
    /// Rotates our leaf: an empty commit with an UpdatePath under a fresh signature key (MDK's
    /// `self_update_with_new_signer`; in v2 with a new account proof for that key), including only
    /// the pending proposals we commit (SelfRemoves).
    /// Published first; merged when a relay accepted it. When no relay answered (a relay may still
    /// have stored it) the commit stays pending (see `publishCommit`) and `.notPublished` is thrown.
    public func selfUpdate(_ chat: GroupID) async throws -> CommitOutcome {
        try requireStarted()
        await acquireSettled(chat)
        defer { release() }
        return try await selfUpdateExclusive(chat)
    }

    /// `selfUpdate` for a caller already inside the exclusive section.
    func selfUpdateExclusive(_ id: GroupID) async throws -> CommitOutcome {
        let rotation = try signerRotation(for: try session(id))
        return try await commitExclusive(id) { mls, filter throws(GroupError) in
            try mls.selfUpdate(signerRotation: rotation, proposalFilter: filter)
        }
    }

    /// A fresh signature key for our leaf, with the leaf extensions the group's version wants for it.
    func signerRotation(for session: GroupSession) throws -> SignerRotation {
        let signer = SignaturePrivateKey.generate()
        do {
            return SignerRotation(signer: signer, leafExtensions: try session.rules.ownLeaf(keys: keys, signer: signer).extensions)
        } catch {
            throw MarmotClientError.encoding("leaf for a new signer: \(error)")
        }
    }

    /// Publishes our commit made from `mls` (the current epoch with the handshake key it used
    /// deleted) and merges it once a relay accepted it (marmot-wire §5.6).
    ///
    /// Before publishing, the commit and the state it leads to are stored as a `PendingOwnCommit`, so
    /// a crash mid-publish cannot lose a commit a relay may already hold. Every relay refusing it (or
    /// never receiving it) discards it. When a relay took it but no OK came, it stays pending: the
    /// next start publishes it again (relays answer duplicates with OK), its echo from a relay merges
    /// it, traffic that opens only in its epoch adopts it (the alternate branch), and another
    /// member's commit for the same epoch supersedes it.
    func publishCommit(_ pending: PendingCommit, from mls: MLSGroup, session: GroupSession) async throws -> CommitOutcome {
        if engines[session.id] != nil { return try await publishEngineCommit(pending, from: mls, session: session) }
        let id = session.id
        // Every peer runs `authorize` on it: a commit they would all drop is never published (it
        // would leave us alone on a branch of our own).
        do {
            try session.rules.authorize(pending.summary, message: pending.message, before: mls, after: pending.newGroup)
        } catch {
            throw MarmotClientError.unauthorized(error)
        }
        let event: Event
        do {
            event = try session.rules.groupEvent(
                pending.message, nostrGroupID: session.stored.nostrGroupID, key: try session.currentEventKey(), createdAt: now())
        } catch {
            throw MarmotClientError.encoding("commit event: \(error)")
        }
        let record = PendingOwnCommit(
            epoch: mls.epoch, preState: mls.serialized(), newState: pending.newGroup.serialized(), event: event,
            notices: Self.notices(
                for: pending.summary, committer: publicKey, previous: session.rules.metadataIfValid(mls.extensions),
                current: session.rules.metadataIfValid(pending.newGroup.extensions)),
            changesGroupData: pending.summary.extensionsChanged,
            orderingKey: session.rules.orderingKey(pending.summary, message: pending.message, before: mls))
        try storage {
            try persist(mls, for: id)
            try store.recordProcessedEvent(ProcessedEvent(eventID: event.id, outcome: .own, processedAt: now(), mlsGroupID: id))
            try savePendingCommit(record, group: id)
        }
        let result = await pool.publish(event, to: route(id))
        return try settle(record, result: result, group: id, mayBeStored: false)
    }

    /// Acts on the relays' verdicts for a pending commit of ours: merge, discard or keep waiting.
    func settle(_ record: PendingOwnCommit, result: PoolPublishResult, group id: GroupID, mayBeStored: Bool) throws -> CommitOutcome {
        if result.isSent {
            let chat = try mergeOwnCommit(record, group: id)
            return CommitOutcome(chat: chat, epoch: chat.epoch, publish: result)
        }
        let unanswered = result.results.values.contains { $0 == .timedOut }
        if unanswered || mayBeStored {
            logger.warning("commit for \(id) epoch \(record.epoch) unconfirmed; kept pending")
            if let next = try? MLSGroup(serialized: record.newState) {
                keepAlternate(AlternateBranch(
                    forkEpoch: record.epoch,
                    snapshot: EpochSnapshot(
                        epoch: record.epoch, state: record.preState, commit: record.event, orderingKey: record.orderingKey),
                    mls: next),
                    for: id)
            }
        } else {
            logger.warning("commit for \(id) epoch \(record.epoch) refused by every relay; discarded")
            try storage { try savePendingCommit(nil, group: id) }
        }
        throw MarmotClientError.notPublished(result)
    }

    /// Adopts a pending commit of ours that a relay holds: snapshot of its epoch, new state, new
    /// epoch key, system lines for the members it changed.
    @discardableResult
    func mergeOwnCommit(_ record: PendingOwnCommit, group id: GroupID) throws -> Chat {
        guard sessions[id]?.mls.epoch == record.epoch else {
            try storage { try savePendingCommit(nil, group: id) }
            throw MarmotClientError.chatInactive(id)
        }
        let next: MLSGroup
        do {
            next = try MLSGroup(serialized: record.newState)
        } catch {
            throw MarmotClientError.mls(error)
        }
        let groupData = try session(id).rules.metadataIfValid(next.extensions)
        try storage {
            try saveSnapshot(
                EpochSnapshot(epoch: record.epoch, state: record.preState, commit: record.event, orderingKey: record.orderingKey),
                group: id)
            // Our own disband (v2 lifecycle) closes the group for us as for everyone.
            try persist(
                next, for: id, groupData: record.changesGroupData ? groupData : nil,
                status: groupData?.disbanded == true ? .inactive : nil)
            try storeCurrentEventKey(id)
            try savePendingCommit(nil, group: id)
        }
        branchBooks[id, default: BranchBook()].removeAlternate(forkEpoch: record.epoch, commit: record.event.id)
        saveBranches(id)
        if groupData?.disbanded == true || record.changesGroupData {
            // Our commit closed the group or may have changed its relays: the pool follows.
            Task { await self.syncPoolRelays() }
        }
        store(record.notices, commit: record.event, group: id)
        noteOwnCommit(id)
        let chat = try self.session(id).chat
        emit(.commitApplied(chat, epoch: next.epoch, committer: publicKey))
        return chat
    }

    /// Notes that a commit of ours took effect in group `id` now: it rotated our leaf
    /// (`rotateIfStale` counts from the last one).
    func noteOwnCommit(_ id: GroupID) {
        try? store.setSetting(ClientSettings.lastRotation(id), Data(String(now()).utf8))
    }

    /// Self-updates a group whose last commit of ours (or, without one, our joining) is older than
    /// `selfUpdateInterval`; called after the group's stored events were read at start-up.
    func rotateIfStale(_ id: GroupID) async {
        guard let interval = options.selfUpdateInterval else { return }
        await acquireSettled(id)
        defer { release() }
        guard let session = sessions[id], session.stored.status == .active, session.mls.isActive else { return }
        let last = (try? store.setting(ClientSettings.lastRotation(id))).flatMap { $0 }
            .flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? session.stored.createdAt
        guard now() - last >= interval else { return }
        do {
            _ = try await selfUpdateExclusive(id)
            logger.info("rotated our leaf in \(id): last rotation was \(now() - last) s ago")
        } catch {
            logger.warning("periodic self-update of \(id) failed: \(error)")
        }
    }

    /// Publishes again the commits a previous run left pending (crash or no relay OK), each inside
    /// the exclusive section; called once after start-up.
    func resumePendingCommits() async {
        for id in sessions.keys.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
            await acquire()
            defer { release() }
            if engines[id] != nil {
                await resumeEngineCommits(id)
                continue
            }
            guard let record = try? loadPendingCommit(id) else { continue }
            guard sessions[id]?.mls.epoch == record.epoch else {
                try? savePendingCommit(nil, group: id)
                continue
            }
            let result = await pool.publish(record.event, to: route(id))
            do {
                _ = try settle(record, result: result, group: id, mayBeStored: true)
                logger.info("pending commit of \(id) confirmed after restart")
            } catch {
                logger.warning("pending commit of \(id) still unconfirmed: \(error)")
            }
        }
    }

    /// The pending commit of group `id`, if one waits for a relay.
    func loadPendingCommit(_ id: GroupID) throws -> PendingOwnCommit? {
        guard let data = try store.setting(ClientSettings.pendingCommit(id)) else { return nil }
        return try PendingOwnCommit(encoded: data)
    }

    func savePendingCommit(_ record: PendingOwnCommit?, group id: GroupID) throws {
        try store.setSetting(ClientSettings.pendingCommit(id), record?.encoded())
        if record == nil { pendingCommitGroups.remove(id) } else { pendingCommitGroups.insert(id) }
        reportConvergence(id)
    }

    // MARK: Competing commits

    /// A commit for past epoch `epoch` arrived after another one for that epoch was applied. The
    /// client loads that epoch's snapshot, processes the competitor from it, and checks it like a
    /// commit of the current epoch and on our branch (`CompetingCommitRace.competitor`); the
    /// decision is `CompetingCommitRace`'s (replay, refused, kept as the alternate, roll back), and
    /// its effects are made here: a moved race reference stored, the competitor kept as an alternate
    /// branch (adopted later if traffic opens only there, `follow`), or the rollback (`rollBack`).
    func resolveCompetingCommit(
        _ event: Event, message: MLSMessage, epoch: UInt64, session: GroupSession
    ) throws(DropReason) -> Applied {
        let snapshot: EpochSnapshot
        do {
            guard let found = try loadSnapshot(group: session.id, epoch: epoch) else {
                throw DropReason.staleCommit(epoch: epoch)
            }
            snapshot = found
        } catch let error as DropReason {
            throw error
        } catch {
            throw .storage("\(error)")
        }
        let race = CompetingCommitRace(rules: session.rules, applied: snapshot, currentEpoch: session.mls.epoch)
        // A replay is recognised first, before any MLS processing.
        if case .replay(let moved)? = race.replay(event) {
            if let moved {
                do { try saveSnapshot(moved, group: session.id) } catch { throw .storage("\(error)") }
                logger.info("commit of epoch \(epoch) re-wrapped earlier as \(event.id.hex): race reference moved")
            } else {
                logger.info("commit \(event.id.hex) replays the one applied for epoch \(epoch)")
            }
            return Applied(group: session.id, outcome: .ignored)
        }
        let restored: MLSGroup
        let result: ProcessedMessage
        let next: MLSGroup
        do {
            restored = try MLSGroup(serialized: snapshot.state)
            (result, next) = try restored.processing(message)
        } catch {
            throw .mls(error)
        }
        guard case .commit(let summary) = result else {
            throw .malformedMessage("a commit-typed message did not process as a commit")
        }
        // A losing branch may later be adopted and a winning one is adopted now: either way it must
        // pass the checks a commit of the current epoch passes, and on our branch.
        let (key, step) = try CompetingCommitRace.competitor(
            summary, message: message, before: restored, after: next, branch: session.mls, rules: session.rules)
        let competitor = AlternateBranch(
            forkEpoch: epoch, snapshot: EpochSnapshot(epoch: epoch, state: snapshot.state, commit: event, orderingKey: key), mls: next)
        // Every branch held is weighed with it (v2: as the engine selects, a branch racing a
        // revocation of an authority it used left out however deep, N1/N2; v1: see `pick`). A
        // snapshot stored before keys were kept leaves our commit unweighed: the race rule keeps it.
        let pick = snapshot.orderingKey == nil ? nil : session.rules.pick(heldBranches(session, candidate: competitor, steps: [step]).held)
        switch pick {
        case .candidate?:
            logger.notice("""
                competing commit \(event.id.hex) for epoch \(epoch) is selected over \(snapshot.commitEventID.hex): \
                rolling \(session.id) back from epoch \(session.mls.epoch)
                """)
            return try rollBack(
                to: summary, message: message, next: next, event: event, restored: restored, snapshot: snapshot, session: session)
        case .forkState(let at)? where at == epoch:
            // Each revokes an authority the other used (two admins demoting each other at once):
            // neither is a valid history, and every member holding both goes back to the fork.
            logger.notice("competing commit \(event.id.hex) for epoch \(epoch) and our branch revoke each other's authority: both left out")
            return try leaveBoth(for: competitor, snapshot: snapshot, restored: restored, session: session)
        case .ours?, .kept?, .forkState?:
            logger.info("competing commit \(event.id.hex) for epoch \(epoch) is not selected over \(snapshot.commitEventID.hex)")
            return keep(competitor, since: epoch, in: session)
        case nil:
            break
        }
        let branches = CompetingBranches(
            forkEpoch: epoch, current: currentTip(session, forkEpoch: epoch, applied: snapshot), other: (epoch + 1, key, [:]))
        let decision = race.decide(event, key: key, branches: branches)
        switch decision {
        case .replay:
            break  // recognised above
        case .refused(let why):
            throw .refusedCompetingCommit(why)
        case .keepAsAlternate:
            logger.info("""
                competing commit \(event.id.hex) for epoch \(epoch) \(decision) against \(snapshot.commitEventID.hex)
                """)
            return keep(competitor, since: epoch, in: session)
        case .rollBack:
            logger.notice("""
                competing commit \(event.id.hex) for epoch \(epoch) beats \(snapshot.commitEventID.hex): \
                rolling \(session.id) back from epoch \(session.mls.epoch)
                """)
            return try rollBack(
                to: summary, message: message, next: next, event: event, restored: restored, snapshot: snapshot, session: session)
        }
        return Applied(group: session.id, outcome: .ignored)
    }

    /// Keeps `competitor` as a branch beside ours: what our branch holds since the fork is what
    /// switching to it would drop (others' messages to mark, ours to send again).
    private func keep(_ competitor: AlternateBranch, since epoch: UInt64, in session: GroupSession) -> Applied {
        let since = sinceFork(session.id, epoch)
        var branch = competitor
        branch.sentSinceFork = since.sent
        branch.receivedSinceFork = since.received
        keepAlternate(branch, for: session.id)
        // Messages of the new branch's epoch that waited may open on it now.
        var applied = Applied(group: session.id, outcome: .ignored)
        applied.branchGrew = true
        return applied
    }

    /// The competitor won: the group rolls back to the fork epoch's snapshot and applies it; the
    /// group data is the winning branch's, our lost change is made again if we may, the branch we
    /// leave is kept as an alternate, others' messages read on it are marked invalidated and ours
    /// are sent again on the winning branch (same rumor ids).
    private func rollBack(
        to summary: CommitSummary, message: MLSMessage, next: MLSGroup, event: Event, restored: MLSGroup,
        snapshot: EpochSnapshot, session: GroupSession
    ) throws(DropReason) -> Applied {
        let epoch = snapshot.epoch
        var applied = try acceptCommit(
            summary, message: message, next: next, event: event, before: restored, session: session,
            raceAnchor: snapshot.anchorCreatedAt, shown: session.metadata)
        // The group data now is the winning branch's, whatever the losing one had set.
        if let winning = session.rules.metadataIfValid(next.extensions) {
            do { try persist(next, for: session.id, groupData: winning) } catch { throw .storage("\(error)") }
            applied.adopt(winning, over: session.stored)
        }
        lostOwnCommit(snapshot, before: restored, ours: session.mls, winner: next, session: session, into: &applied)
        applied.switchedBranch = true
        let dropped = leaveOurBranch(from: snapshot, session: session)
        invalidateReceived(dropped.received, in: session.id)
        applied.resend += dropped.sent
        for stale in (epoch + 1)..<max(epoch + 1, session.mls.epoch) {
            try? store.setSetting(EpochSnapshot.settingKey(session.id, epoch: stale), nil)
        }
        return applied
    }

    /// Our branch from the fork at `snapshot.epoch` and `competitor` each revoke an authority the
    /// other used: the group goes back to the fork's state (`restored`) with both kept as
    /// branches, left out of selection while that holds (`BranchTree.excludedTips`
    /// does the same, so every member holding both ends there whatever the order). Others'
    /// messages read on our branch are marked, ours are sent again; our lost change is not made
    /// again (the other admin's would race it the same way, round after round).
    private func leaveBoth(
        for competitor: AlternateBranch, snapshot: EpochSnapshot, restored: MLSGroup, session: GroupSession
    ) throws(DropReason) -> Applied {
        let id = session.id, epoch = snapshot.epoch
        let dropped = leaveOurBranch(from: snapshot, session: session, keeping: competitor)
        let groupData = session.rules.metadataIfValid(restored.extensions)
        do {
            // No commit is applied at the fork epoch any more: its snapshot and later ones go.
            for stale in epoch..<max(epoch, session.mls.epoch) {
                try store.setSetting(EpochSnapshot.settingKey(id, epoch: stale), nil)
            }
            try persist(restored, for: id, groupData: groupData)
            try storeCurrentEventKey(id)
        } catch {
            throw .storage("\(error)")
        }
        invalidateReceived(dropped.received, in: id)
        var applied = Applied(group: id, outcome: .processed)
        applied.newEpoch = true
        applied.switchedBranch = true
        applied.resend = dropped.sent
        if let groupData { applied.adopt(groupData, over: session.stored) }
        if let chat = sessions[id]?.chat { emit(.commitApplied(chat, epoch: epoch, committer: nil)) }
        return applied
    }

    /// Leaves our branch from the fork at `snapshot.epoch` (`session` as it stood on it): keeps it
    /// as a branch (and `competitor` after it), cuts the book back to the fork and stores the
    /// record once; returns others' messages read on it (to mark) and ours sent on it (to send
    /// again), oldest first.
    private func leaveOurBranch(
        from snapshot: EpochSnapshot, session: GroupSession, keeping competitor: AlternateBranch? = nil
    ) -> (received: [EventID], sent: [EventID]) {
        let id = session.id, epoch = snapshot.epoch
        let ourPath = storedPath(of: session, after: epoch)
        branchBooks[id, default: BranchBook()].keep(
            (branchBooks[id] ?? BranchBook()).leaving(at: epoch, snapshot: snapshot, path: ourPath, mls: session.mls))
        if let competitor { branchBooks[id, default: BranchBook()].keep(competitor) }
        let dropped = sinceFork(id, epoch)
        branchBooks[id, default: BranchBook()].rollBack(to: epoch, snapshot: snapshot, path: ourPath)
        // Stored once, after the cut (the branches kept are in the same record): the witnesses
        // after the fork are the branch we left's now, and a restart must not count them for the
        // branch we are on.
        saveBranches(id)
        return dropped
    }

    /// Stores the snapshot of `snapshot.epoch` and forgets the one five epochs older, and any kept
    /// one whose commit is older than `snapshotMaxAge` (a snapshot holds that epoch's secrets).
    func saveSnapshot(_ snapshot: EpochSnapshot, group: GroupID) throws {
        try store.setSetting(EpochSnapshot.settingKey(group, epoch: snapshot.epoch), snapshot.encoded())
        if snapshot.epoch >= EpochSnapshot.retained {
            try store.setSetting(EpochSnapshot.settingKey(group, epoch: snapshot.epoch - EpochSnapshot.retained), nil)
        }
        let oldest = now() - options.snapshotMaxAge
        for back in 1..<EpochSnapshot.retained where snapshot.epoch >= back {
            let key = EpochSnapshot.settingKey(group, epoch: snapshot.epoch - back)
            if let kept = try loadSnapshot(group: group, epoch: snapshot.epoch - back), kept.commitCreatedAt < oldest {
                try store.setSetting(key, nil)
            }
        }
    }

    func loadSnapshot(group: GroupID, epoch: UInt64) throws -> EpochSnapshot? {
        guard let data = try store.setting(EpochSnapshot.settingKey(group, epoch: epoch)) else { return nil }
        return try EpochSnapshot(encoded: data)
    }
}

extension MarmotClient {
    /// When the commit `applied` recorded at the fork was ours and the group left its branch: what
    /// it changed in the group data (never the rest of our branch's data) and who it added or
    /// removed are made again on the winning branch, if we may (`reissue`, `reissueMembers`).
    func lostOwnCommit(
        _ applied: EpochSnapshot, before: MLSGroup, ours: MLSGroup, winner: MLSGroup, session: GroupSession, into result: inout Applied
    ) {
        guard (try? store.processedEvent(id: applied.commitEventID))?.outcome == .own, ours.epoch == applied.epoch + 1 else { return }
        reissueLost(before: before, ours: ours, winner: winner, session: session, into: &result)
    }

    /// What our commit changed from `before` to our branch's `ours` (group data we changed, members
    /// we added or removed), to make again on `winner`'s branch when it is still missing there.
    func reissueLost(before: MLSGroup, ours: MLSGroup, winner: MLSGroup, session: GroupSession, into result: inout Applied) {
        if let winning = session.rules.metadataIfValid(winner.extensions),
           let previous = session.rules.metadataIfValid(before.extensions),
           let changed = session.rules.metadataIfValid(ours.extensions)
        {
            let intent = GroupDataIntent(from: previous, to: changed)
            if !intent.isEmpty, intent.applied(to: winning) != winning {
                logger.notice("our group-data change in \(session.id) lost a commit race; issuing it again")
                result.reissueGroupData = intent
            }
        }
        func accounts(_ group: MLSGroup) -> Set<PublicKey> { Set(group.members.compactMap { NostrIdentity.publicKey($0.credential) }) }
        if let members = MembershipIntent(before: accounts(before), ours: accounts(ours), winner: accounts(winner), us: publicKey) {
            logger.notice("our membership change in \(session.id) lost a commit race (\(members.add.count) to add, \(members.remove.count) to remove); making it again")
            result.reissueMembers = members
        }
    }
}
