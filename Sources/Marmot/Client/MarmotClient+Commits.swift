import Foundation
import MLS
import Nostr
import NostrClient

/// Our own commits (publish first, merge on relay OK; marmot-wire §5.6) and competing commits
/// (§5.7).
extension MarmotClient {
    /// Rotates our leaf: an empty commit with an UpdatePath under a fresh signature key (MDK's
    /// `self_update_with_new_signer`). Published first; merged only when at least one relay accepted
    /// it, else discarded (the group stays in its epoch) and `.notPublished` is thrown.
    public func selfUpdate(_ chat: GroupID) async throws -> CommitOutcome {
        try requireStarted()
        await acquire()
        defer { release() }
        return try await selfUpdateExclusive(chat)
    }

    /// `selfUpdate` for a caller already inside the exclusive section.
    func selfUpdateExclusive(_ id: GroupID) async throws -> CommitOutcome {
        let session = try session(id)
        guard session.mls.isActive, session.stored.status != .inactive else { throw MarmotClientError.chatInactive(id) }
        var mls = session.mls
        let pending: PendingCommit
        do {
            pending = try mls.selfUpdate(signerRotation: SignerRotation(signer: .generate()))
        } catch {
            throw MarmotClientError.mls(error)
        }
        return try await publishCommit(pending, from: mls, session: session)
    }

    /// Publishes our commit made from `mls` (the current epoch with the handshake key it used
    /// deleted), then on relay OK snapshots the epoch, adopts the new one and stores its key.
    func publishCommit(_ pending: PendingCommit, from mls: MLSGroup, session: GroupSession) async throws -> CommitOutcome {
        let id = session.id
        let event: Event
        do {
            event = try GroupEvent.build(
                mlsMessage: pending.message.tlsSerialized, nostrGroupID: session.stored.nostrGroupID,
                key: try session.currentEventKey(), createdAt: now())
        } catch {
            throw MarmotClientError.encoding("commit event: \(error)")
        }
        try storage {
            try persist(mls, for: id)
            try store.recordProcessedEvent(ProcessedEvent(eventID: event.id, outcome: .own, processedAt: now(), mlsGroupID: id))
        }
        let result = await pool.publish(event)
        guard result.isSent else {
            logger.warning("commit for \(id) epoch \(mls.epoch) not accepted by any relay; discarded")
            throw MarmotClientError.notPublished(result)
        }
        try storage {
            try saveSnapshot(EpochSnapshot(epoch: mls.epoch, state: mls.serialized(), commit: event), group: id)
            try persist(pending.newGroup, for: id)
            try storeCurrentEventKey(id)
        }
        let chat = try self.session(id).chat
        emit(.commitApplied(chat, epoch: pending.newGroup.epoch, committer: publicKey))
        return CommitOutcome(chat: chat, epoch: pending.newGroup.epoch, publish: result)
    }

    // MARK: Competing commits

    /// A commit for past epoch `epoch` arrived after another one for that epoch was applied. Same
    /// content → replay, ignored. Else it wins if its created_at is smaller, or equal with a smaller
    /// lowercase hex id: the group rolls back to the epoch's snapshot and applies it; messages of
    /// the dropped branch stay stored as they are. Otherwise it lost and is ignored.
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
        if snapshot.contentHash == EpochSnapshot.contentHash(event) {
            logger.info("commit \(event.id.hex) replays the one applied for epoch \(epoch)")
            return Applied(group: session.id, outcome: .ignored)
        }
        guard snapshot.isBeaten(by: event) else {
            logger.info("competing commit \(event.id.hex) for epoch \(epoch) lost to \(snapshot.commitEventID.hex)")
            rememberLosingBranch(of: event, message: message, snapshot: snapshot, session: session)
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
        logger.notice("""
            competing commit \(event.id.hex) for epoch \(epoch) beats \(snapshot.commitEventID.hex): \
            rolling \(session.id) back from epoch \(session.mls.epoch)
            """)
        let applied = try acceptCommit(summary, next: next, event: event, before: restored, session: session)
        alternates[session.id] = AlternateBranch(forkEpoch: epoch, snapshot: snapshot, mls: session.mls)
        for stale in (epoch + 1)..<max(epoch + 1, session.mls.epoch) {
            try? store.setSetting(EpochSnapshot.settingKey(session.id, epoch: stale), nil)
        }
        return applied
    }

    /// Stores the snapshot of `snapshot.epoch` and forgets the one five epochs older.
    func saveSnapshot(_ snapshot: EpochSnapshot, group: GroupID) throws {
        try store.setSetting(EpochSnapshot.settingKey(group, epoch: snapshot.epoch), snapshot.encoded())
        if snapshot.epoch >= EpochSnapshot.retained {
            try store.setSetting(EpochSnapshot.settingKey(group, epoch: snapshot.epoch - EpochSnapshot.retained), nil)
        }
    }

    func loadSnapshot(group: GroupID, epoch: UInt64) throws -> EpochSnapshot? {
        guard let data = try store.setting(EpochSnapshot.settingKey(group, epoch: epoch)) else { return nil }
        return try EpochSnapshot(encoded: data)
    }
}
