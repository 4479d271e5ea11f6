import Foundation
import MLS
import Nostr

/// One commit of a branch after its fork, as the revocation rule sees it: who made it with what
/// authority, and what authority it took away.
///
/// A branch whose commits used an authority that a competing branch from the same fork revokes
/// (a member that branch's admin removed, an admin it demoted making an admin-only commit) is
/// never a valid history, however deep it grows: otherwise a removed member could race its own
/// removal from an earlier state, alone, and win on depth (issue 24, N1 and N2). Every replica
/// holding both branches leaves out the same one, so the rule does not depend on delivery order.
package struct BranchStep: Sendable, Hashable {
    /// The commit's ordering key (nil for a commit of ours kept from before keys were stored).
    package let key: CommitOrderingKey?
    /// Accounts the commit removed, when it was privileged (an admin's commit).
    package let removed: Set<Data>
    /// Admins the commit demoted, when it was privileged.
    package let demoted: Set<Data>
    /// Accounts the commit added, when it was privileged: on a branch that races a revocation they
    /// are its committer's, not witnesses of where the group is (`BranchTree.excludedTips`).
    package let added: Set<Data>

    /// A commit with `key` that removed `removed`, demoted `demoted` and added `added` (all empty
    /// unless it was privileged).
    package init(key: CommitOrderingKey?, removed: Set<Data> = [], demoted: Set<Data> = [], added: Set<Data> = []) {
        self.key = key
        let privileged = key?.priority == .privileged
        self.removed = privileged ? removed : []
        self.demoted = privileged ? demoted : []
        self.added = privileged ? added : []
    }

    /// The commit with `key` that moved the group from `before` to `after`.
    package init(key: CommitOrderingKey?, before: MLSGroup, after: MLSGroup, rules: any GroupRules) {
        // Only a privileged commit revokes: the states are read for nothing else.
        guard key?.priority == .privileged else {
            self.init(key: key)
            return
        }
        func accounts(_ mls: MLSGroup) -> Set<Data> {
            Set(mls.members.compactMap { NostrIdentity.publicKey($0.credential).map { Data($0.bytes) } })
        }
        func admins(_ mls: MLSGroup) -> Set<Data> {
            Set((rules.metadataIfValid(mls.extensions)?.admins ?? []).map { Data($0.bytes) })
        }
        let (was, now) = (accounts(before), accounts(after))
        self.init(key: key, removed: was.subtracting(now), demoted: admins(before).subtracting(admins(after)), added: now.subtracting(was))
    }

    /// How many steps a client keeps known (a few forks' worth; more are read again).
    static let cacheLimit = 256

    /// The steps of a branch whose commits are `commits` (each snapshot the state before its
    /// commit, with that commit's key), oldest first, up to `tip`; empty when a stored state does
    /// not read.
    ///
    /// Only a privileged commit can revoke anything, so only its states are read, and each step
    /// read is kept in `known` by its commit (a commit leads from one state to one state, so its
    /// step never changes): a client weighs the same kept branches again for every message that
    /// opens on one of them, and reading MLS states each time was a sixth of its work.
    static func path(
        _ commits: [EpochSnapshot], to tip: MLSGroup, rules: any GroupRules, known: inout [EventID: BranchStep]
    ) -> [BranchStep] {
        var steps: [BranchStep] = []
        for (index, commit) in commits.enumerated() {
            guard let key = commit.orderingKey, key.priority == .privileged else {
                steps.append(BranchStep(key: commit.orderingKey))
                continue
            }
            if let step = known[commit.commitEventID] {
                steps.append(step)
                continue
            }
            guard let before = try? MLSGroup(serialized: commit.state),
                  let after = index + 1 < commits.count ? try? MLSGroup(serialized: commits[index + 1].state) : tip
            else { return [] }
            let step = BranchStep(key: key, before: before, after: after, rules: rules)
            known[commit.commitEventID] = step
            steps.append(step)
        }
        return steps
    }
}

extension Sequence where Element == BranchStep {
    /// Whether a commit of this branch used an authority that a commit of `competing` (a branch
    /// from the same fork) revokes and no commit of this branch revokes too (when both branches
    /// remove a member, neither raced that removal).
    package func isRevoked<Other: Sequence>(by competing: Other) -> Bool where Other.Element == BranchStep {
        let theirs = competing.revoked
        guard !theirs.removed.isEmpty || !theirs.demoted.isEmpty else { return false }
        let mine = revoked
        let removed = theirs.removed.subtracting(mine.removed), demoted = theirs.demoted.subtracting(mine.demoted)
        return contains { step in
            guard let key = step.key else { return false }
            return removed.contains(key.committer) || (key.priority == .privileged && demoted.contains(key.committer))
        }
    }

    /// Every account these commits removed, and every admin they demoted.
    package var revoked: (removed: Set<Data>, demoted: Set<Data>) {
        reduce(into: (removed: Set<Data>(), demoted: Set<Data>())) {
            $0.removed.formUnion($1.removed)
            $0.demoted.formUnion($1.demoted)
        }
    }
}
