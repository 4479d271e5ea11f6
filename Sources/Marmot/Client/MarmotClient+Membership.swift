import Foundation
import MLS
import Nostr
import NostrClient

/// Membership as the chat shows it (system lines) and the proposals we are willing to commit
/// (MIP-03 authorization, as MDK 0.8.0 applies it).
extension MarmotClient {
    /// The system lines for a commit: one per member it added, removed or let go (SelfRemove), and,
    /// when it changed the group data from `previous`, a rename and one per admin promoted or
    /// demoted (a removed admin gets only its removal line).
    static func notices(
        for summary: CommitSummary, committer: PublicKey, previous: GroupMetadata? = nil, current: GroupMetadata? = nil
    ) -> [SystemNotice] {
        // The terminal commit's one line (spec `foundation/application-messages.md`, kind 1210:
        // its coupled removals and admin change make no lines of their own).
        if V2LifecycleTransition.disbands(summary.proposals.map(\.proposal)) {
            return [SystemNotice(change: .disbanded, actor: committer, subject: committer)]
        }
        var notices: [SystemNotice] = []
        for added in summary.added {
            if let subject = NostrIdentity.publicKey(added.credential) {
                notices.append(SystemNotice(change: .added, actor: committer, subject: subject))
            }
        }
        for removed in summary.removed {
            guard let subject = NostrIdentity.publicKey(removed.credential) else { continue }
            let change: SystemNotice.Change = summary.selfRemoved.contains(removed.leafIndex) ? .left : .removed
            notices.append(SystemNotice(change: change, actor: committer, subject: subject))
        }
        // Group-data lines when the commit changed the data, or when `current` differs from what
        // was shown for another reason (a rollback onto a branch that lacks our branch's change).
        guard let previous, let data = current, summary.newExtensions != nil || data != previous else { return notices }
        let removed = Set(summary.removed.compactMap { NostrIdentity.publicKey($0.credential) })
        return notices + groupDataNotices(from: previous, to: data, actor: committer, removed: removed)
    }

    /// The system lines of a change of group data: a rename and one line per admin promoted or
    /// demoted (an admin who left the group in the same commit is not also "demoted").
    static func groupDataNotices(
        from previous: GroupMetadata, to current: GroupMetadata, actor: PublicKey, removed: Set<PublicKey> = []
    ) -> [SystemNotice] {
        var notices: [SystemNotice] = []
        if current.name != previous.name { notices.append(SystemNotice(change: .renamed, actor: actor, subject: actor)) }
        if current.image != previous.image || current.avatarURL != previous.avatarURL {
            notices.append(SystemNotice(change: .pictureChanged, actor: actor, subject: actor))
        }
        if current.retention != previous.retention {
            notices.append(SystemNotice(change: .retentionChanged, actor: actor, subject: actor))
        }
        if current.disbanded && !previous.disbanded {
            notices.append(SystemNotice(change: .disbanded, actor: actor, subject: actor))
        }
        for admin in current.admins where !previous.admins.contains(admin) {
            notices.append(SystemNotice(change: .promoted, actor: actor, subject: admin))
        }
        for admin in previous.admins where !current.admins.contains(admin) && !removed.contains(admin) {
            notices.append(SystemNotice(change: .demoted, actor: actor, subject: admin))
        }
        return notices
    }

    /// Stores and reports the system lines of another member's commit.
    func noteMembershipChanges(
        _ summary: CommitSummary, committer: PublicKey?, previous: GroupMetadata? = nil, current: GroupMetadata? = nil,
        commit: Event, group: GroupID
    ) {
        guard let committer else { return }
        store(Self.notices(for: summary, committer: committer, previous: previous, current: current), commit: commit, group: group)
    }

    /// Stores each notice as a message of the chat and reports it as `membershipChanged`; the chat
    /// list and the chat show them like messages.
    func store(_ notices: [SystemNotice], commit: Event, group: GroupID) {
        for notice in notices {
            let message = notice.message(in: group, commit: commit.id, createdAt: commit.createdAt, me: publicKey)
            do {
                try store.saveMessage(message)
            } catch {
                logger.error("cannot store a membership notice in \(group): \(error)")
                continue
            }
            refreshRow(group)
            if let chat = sessions[group]?.chat { emit(.membershipChanged(chat, message)) }
        }
    }

    /// Whether we are an admin of the group in its current data.
    func isAdmin(_ session: GroupSession) -> Bool { session.stored.admins.contains(publicKey) }

    /// Commits the pending SelfRemove proposals of a group, as MDK does for a member that leaves,
    /// when the version lets us (`GroupRules.commitsLeaves`: v1 admins, v2 every member). Called
    /// after a proposal arrived; failures are reported, not thrown.
    func commitPendingSelfRemoves(_ id: GroupID) async {
        guard let session = sessions[id], session.stored.status == .active, session.mls.isActive,
              session.rules.commitsLeaves(asAdmin: isAdmin(session)),
              session.mls.proposals.contains(where: { session.rules.willCommit($0, in: session.mls) })
        else { return }
        do {
            _ = try await commitExclusive(id) { mls, filter throws(GroupError) in
                try mls.commit(includePendingProposals: true, proposalFilter: filter)
            }
            logger.info("committed a pending SelfRemove in \(id)")
        } catch {
            logger.warning("cannot commit the pending SelfRemove in \(id): \(error)")
            emit(.failure(chat: id, reason: "committing a member's leave: \(error)"))
        }
    }

    /// Builds a commit of ours (`build` gets the filter of the pending proposals we are willing to
    /// commit, `GroupRules.willCommit`: MDK commits others' SelfRemoves only, and v2 never an
    /// admin's), then publishes it (`publishCommit`). Caller holds the exclusive section.
    func commitExclusive(
        _ id: GroupID,
        _ build: (inout MLSGroup, @escaping (PendingProposal) -> Bool) throws(GroupError) -> PendingCommit
    ) async throws -> CommitOutcome {
        let session = try session(id)
        guard session.mls.isActive, session.stored.status == .active else { throw MarmotClientError.chatInactive(id) }
        if try loadPendingCommit(id) != nil { throw MarmotClientError.commitPending(id) }
        if case .resolving = engines[id]?.status { throw MarmotClientError.commitPending(id) }
        var mls = session.mls
        let pending: PendingCommit
        do {
            let current = session.mls
            let rules = session.rules
            pending = try build(&mls, { rules.willCommit($0, in: current) })
        } catch {
            throw MarmotClientError.mls(error)
        }
        return try await publishCommit(pending, from: mls, session: session)
    }
}
