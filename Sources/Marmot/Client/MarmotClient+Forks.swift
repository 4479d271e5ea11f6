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
    /// epoch: it must be authorized like any commit (§5.5 step 6), and a committer that is no longer
    /// a member on our branch may at most have rotated its own leaf or left, so a removed admin
    /// cannot use the retained snapshot of an epoch where it was admin to take the group back.
    func checkCompetitor(
        _ summary: CommitSummary, message: MLSMessage, before: MLSGroup, after: MLSGroup, session: GroupSession
    ) throws(DropReason) {
        do {
            try session.rules.authorize(summary, message: message, before: before, after: after)
        } catch {
            throw .refusedCompetingCommit("\(error)")
        }
        guard let committer = before.member(at: summary.committer).flatMap({ NostrIdentity.publicKey($0.credential) }) else {
            throw .refusedCompetingCommit("the committer has no Nostr identity")
        }
        if !session.memberKeys.contains(committer) && !summary.isMemberCommit {
            throw .refusedCompetingCommit("\(committer.hex) is no longer a member and cannot commit as admin")
        }
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
    /// to its commit, its epoch key stored), then take the message in on it.
    func follow(
        _ alternate: AlternateBranch, message: MLSMessage, event: Event, session: GroupSession
    ) throws(DropReason) -> Applied {
        let result: ProcessedMessage
        let next: MLSGroup
        do {
            (result, next) = try alternate.mls.processing(message)
        } catch {
            throw .mls(error)
        }
        logger.notice("""
            switching \(session.id) to the other branch of the fork at epoch \(alternate.forkEpoch) \
            (commit \(alternate.snapshot.commitEventID.hex)), where the other member is
            """)
        do {
            try saveSnapshot(alternate.snapshot, group: session.id)
            try persist(alternate.mls, for: session.id)
            try storeCurrentEventKey(session.id)
            if try loadPendingCommit(session.id)?.event.id == alternate.snapshot.commitEventID {
                try savePendingCommit(nil, group: session.id)
            }
        } catch {
            throw .storage("\(error)")
        }
        alternates[session.id] = nil
        let switched = try sessionOrDrop(session.id)
        emit(.commitApplied(switched.chat, epoch: switched.mls.epoch, committer: nil))
        var applied = try accept(result, message: message, next: next, event: event, session: switched)
        applied.newEpoch = true
        applied.resend = alternate.sentSinceFork
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
}
