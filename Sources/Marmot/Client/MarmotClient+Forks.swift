import Foundation
import MLS
import Nostr
import NostrClient

/// Healing forks that the §5.7 rule alone cannot: MDK 0.8.0 keeps its own commit (or whichever it
/// applied first) in a race with it, so the rule's winner may not be the branch the other member
/// is on. The losing branch is kept as an `AlternateBranch`; traffic from the other member that
/// opens only there moves us onto it, and our messages sent on the abandoned branch go out again.
extension MarmotClient {
    /// Refuses a competing commit (§5.7) that our own validation would not take in the current
    /// epoch, and returns its ordering key: it must be authorized like any commit against its own
    /// parent state (§5.5 step 6), and its committer must hold the authority it needs on our branch
    /// (`GroupRules.authorizeOnBranch`), so neither a removed member (N1) nor a demoted admin (N2)
    /// can use a retained snapshot of an epoch where it still had that authority.
    func checkCompetitor(
        _ summary: CommitSummary, message: MLSMessage, before: MLSGroup, after: MLSGroup, session: GroupSession
    ) throws(DropReason) -> CommitOrderingKey {
        do {
            try session.rules.authorize(summary, message: message, before: before, after: after)
        } catch {
            throw .refusedCompetingCommit("\(error)")
        }
        guard let key = session.rules.orderingKey(summary, message: message, before: before) else {
            throw .refusedCompetingCommit("the committer has no Nostr identity")
        }
        try session.rules.authorizeOnBranch(key, branch: session.mls)
        return key
    }

    /// Traffic of the other member at `epoch` opened on the current branch: they are on it.
    func confirmBranch(_ id: GroupID, epoch: UInt64) {
        guard let kept = alternates[id], kept.contains(where: { epoch > $0.forkEpoch }) else { return }
        alternates[id] = kept.filter { epoch <= $0.forkEpoch }
        logger.info("fork of \(id) before epoch \(epoch) settled on the current branch")
    }

    /// Keeps `branch` as one of the group's alternates (several may be open after a race of three
    /// or more commits); the same branch replaces its earlier copy, and at most four are kept.
    func keepAlternate(_ branch: AlternateBranch, for id: GroupID) {
        var kept = alternates[id] ?? []
        kept.removeAll { $0.forkEpoch == branch.forkEpoch && $0.snapshot.commitEventID == branch.snapshot.commitEventID }
        kept.append(branch)
        alternates[id] = Array(kept.suffix(4))
    }

    /// `message` opened only on the alternate branch: adopt it (snapshot of the fork epoch rewritten
    /// to its commit, its epoch key stored, its group data: name, admins, relays, `h` and the
    /// subscription for it, with system lines for what changed), then take the message in on it.
    /// An alternate whose commit is not authorized on the branch we are on is never followed (N1,
    /// N2): its key says who committed it and whether it needed an admin. Alternates without a key
    /// are our own unconfirmed commit or our applied branch from a snapshot stored before keys were
    /// kept; both were authorized when made.
    func follow(
        _ alternate: AlternateBranch, message: MLSMessage, event: Event, session: GroupSession
    ) throws(DropReason) -> Applied {
        if let key = alternate.snapshot.orderingKey {
            try session.rules.authorizeOnBranch(key, branch: session.mls)
        }
        let current: EpochSnapshot?
        do { current = try loadSnapshot(group: session.id, epoch: alternate.forkEpoch) } catch { throw .storage("\(error)") }
        guard session.rules.mayFollow(alternate.snapshot, applied: current) else {
            throw .refusedCompetingCommit("traffic on the branch of \(alternate.snapshot.commitEventID.hex), which lost the race")
        }
        let result: ProcessedMessage
        let next: MLSGroup
        do {
            (result, next) = try alternate.mls.processing(message)
        } catch {
            throw .mls(error)
        }
        let previous = session.metadata
        let adopted = session.rules.metadataIfValid(alternate.mls.extensions)
        logger.notice("""
            switching \(session.id) to the other branch of the fork at epoch \(alternate.forkEpoch) \
            (commit \(alternate.snapshot.commitEventID.hex)), where the other member is
            """)
        do {
            try saveSnapshot(alternate.snapshot, group: session.id)
            try persist(alternate.mls, for: session.id, groupData: adopted)
            try storeCurrentEventKey(session.id)
            if try loadPendingCommit(session.id)?.event.id == alternate.snapshot.commitEventID {
                try savePendingCommit(nil, group: session.id)
            }
        } catch {
            throw .storage("\(error)")
        }
        alternates[session.id] = nil
        let switched = try sessionOrDrop(session.id)
        if let previous, let adopted {
            let committer = alternate.snapshot.orderingKey.flatMap { try? PublicKey(bytes: $0.committer) } ?? publicKey
            store(Self.groupDataNotices(from: previous, to: adopted, actor: committer), commit: event, group: session.id)
        }
        emit(.commitApplied(switched.chat, epoch: switched.mls.epoch, committer: nil))
        invalidateReceived(alternate.receivedSinceFork, in: session.id)
        receivedInEpoch[session.id] = nil
        var applied = try accept(result, message: message, next: next, event: event, session: switched)
        applied.newEpoch = true
        applied.resend = alternate.sentSinceFork
        if let adopted {
            applied.newNostrGroupID = applied.newNostrGroupID || adopted.nostrGroupID != session.stored.nostrGroupID
            if adopted.relays != session.stored.relays, applied.newRelays.isEmpty { applied.newRelays = adopted.relays }
        }
        return applied
    }

    private func sessionOrDrop(_ id: GroupID) throws(DropReason) -> GroupSession {
        guard let session = sessions[id] else { throw .storage("group \(id) vanished") }
        return session
    }

    /// Encrypts our messages again on the current branch and publishes them (same rumor ids).
    func resend(_ rumors: [EventID], in id: GroupID) async {
        for rumorID in rumors {
            guard let stored = try? store.message(mlsGroupID: id, rumorID: rumorID), stored.isMine else { continue }
            do {
                let rumor = try ChatRumor(
                    author: publicKey, content: stored.content, kind: stored.kind, tags: stored.tags, createdAt: stored.createdAt)
                guard rumor.id == rumorID else { continue }
                let (message, event) = try prepare(rumor, in: id)
                _ = await deliver(message, event: event)
                logger.info("re-sent \(rumorID.hex) on the new branch of \(id)")
            } catch {
                logger.warning("cannot re-send \(rumorID.hex) in \(id): \(error)")
            }
        }
    }

    /// Notes another member's message read on the current branch, so that it can be marked if the
    /// group leaves this branch: by epoch (a competing commit rolls epochs back) and per open fork.
    func noteReceivedOnBranch(_ rumorID: EventID, in session: GroupSession) {
        let epoch = session.mls.epoch
        receivedInEpoch[session.id] = receivedInEpoch[session.id]?.filter { $0.key + EpochSnapshot.retained > epoch }
        receivedInEpoch[session.id, default: [:]][epoch, default: []].append(rumorID)
        for index in alternates[session.id]?.indices ?? 0..<0 where alternates[session.id]?[index].forkEpoch ?? .max < epoch {
            alternates[session.id]?[index].receivedSinceFork.append(rumorID)
        }
    }

    /// Marks others' messages of a branch the group left as invalidated (kept, shown as not part of
    /// the group's history) and reports them.
    func invalidateReceived(_ rumorIDs: [EventID], in group: GroupID) {
        guard !rumorIDs.isEmpty else { return }
        var marked: [EventID] = []
        for rumorID in rumorIDs {
            do {
                try store.updateDeliveryState(mlsGroupID: group, rumorID: rumorID, state: .invalidated, outerEventID: nil)
                marked.append(rumorID)
            } catch {
                logger.warning("cannot mark \(rumorID.hex) in \(group) invalidated: \(error)")
            }
        }
        logger.notice("\(marked.count) messages of \(group) belonged to the abandoned branch: marked invalidated")
        if let chat = sessions[group]?.chat { emit(.messagesInvalidated(chat, marked)) }
    }
}
