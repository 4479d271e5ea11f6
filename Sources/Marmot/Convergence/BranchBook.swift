import Foundation
import MLS
import Nostr

/// The other side of a fork left by a competing commit: the state we would be in had the other
/// commit of `forkEpoch` been applied. MDK 0.8.0 snapshots only commits it receives, never its own
/// (`merge_pending_commit`), so in a race with one of its own commits it keeps whichever commit it
/// applied first, whatever §5.7 says. When the other member's traffic opens only on this branch,
/// it is the one they are on: the client switches to it. Commits made on it grow it (`growing`).
/// Kept (and stored, `StoredBranches`) until one branch is confirmed by the group's traffic.
struct AlternateBranch: Sendable {
    let forkEpoch: UInt64
    /// How the snapshot of `forkEpoch` reads when this branch is the applied one.
    let snapshot: EpochSnapshot
    var mls: MLSGroup {
        didSet { tipEventKey = nil }
    }
    /// The group-event key of `mls`, once derived (`derivingPathKeys`): the peeler asks for it on
    /// every event while the branch is kept, and deriving it each time was a tenth of the cost of
    /// a message held on a kept branch. Cleared when `mls` changes.
    private(set) var tipEventKey: GroupEventKey?
    /// Our messages sent on the current branch since the fork, re-sent if we switch.
    var sentSinceFork: [EventID] = []
    /// Others' messages read on the current branch since the fork, invalidated if we switch.
    var receivedSinceFork: [EventID] = []
    /// Application senders per epoch seen on this branch (branch selection's witnesses).
    var witnesses: [UInt64: Set<Data>] = [:]
    /// The branch's states after the fork below its tip, oldest first, each with the commit that
    /// left it: what the snapshots of those epochs become if we switch here (empty while the
    /// branch is one commit deep).
    var path: [EpochSnapshot] = []
    /// The group-event key of each state in `path`, by epoch (not stored: derived again from the
    /// states when read back), so messages sent in those epochs on this branch open too.
    var pathKeys: [UInt64: GroupEventKey] = [:]

    /// The key of the branch's last commit: branch selection weighs a tip by it.
    var tipKey: CommitOrderingKey? { path.last?.orderingKey ?? snapshot.orderingKey }

    /// This branch one commit deeper: `commit` (with its key) moved it from its tip to `next`.
    /// A branch grows while it is not selected, so that it can still win on depth once it is
    /// deeper than ours, as it does in MDK 0.9.14's graph (issue 24).
    func growing(by commit: Event, key: CommitOrderingKey?, to next: MLSGroup) -> AlternateBranch {
        var grown = self
        grown.path.append(EpochSnapshot(epoch: mls.epoch, state: mls.serialized(), commit: commit, orderingKey: key))
        grown.pathKeys[mls.epoch] = try? Self.eventKey(of: mls)
        grown.mls = next
        return grown
    }

    /// This branch as seen from `taken`, a branch sharing its first commits that the group moves
    /// to: it parts from `taken` at the last state they share, its path after that state. A
    /// branch sharing nothing with `taken` is unchanged.
    func rebased(onto taken: AlternateBranch) -> AlternateBranch {
        guard forkEpoch == taken.forkEpoch, snapshot.commitEventID == taken.snapshot.commitEventID else { return self }
        // Walk the shared commits: the steps after the fork state, in order.
        var shared = 0
        while shared < path.count, shared < taken.path.count, path[shared].commitEventID == taken.path[shared].commitEventID {
            shared += 1
        }
        guard shared < path.count else { return self }
        var moved = AlternateBranch(
            forkEpoch: path[shared].epoch, snapshot: path[shared], mls: mls,
            witnesses: witnesses.filter { $0.key > path[shared].epoch }, path: Array(path[(shared + 1)...]))
        moved.pathKeys = pathKeys.filter { $0.key > path[shared].epoch }
        return moved
    }

    /// This branch up to its state of `epoch` (`state`, on its path): the branch a commit made
    /// from that state forks from.
    func truncated(atEpoch epoch: UInt64, state: MLSGroup) -> AlternateBranch {
        var branch = AlternateBranch(
            forkEpoch: forkEpoch, snapshot: snapshot, mls: state, sentSinceFork: sentSinceFork,
            receivedSinceFork: receivedSinceFork, witnesses: witnesses.filter { $0.key <= epoch },
            path: path.filter { $0.epoch < epoch })
        branch.pathKeys = pathKeys.filter { $0.key < epoch }
        return branch
    }

    /// The branch with the key of every path state it lacks derived from that state, and its tip's.
    func derivingPathKeys() -> AlternateBranch {
        var branch = self
        if branch.tipEventKey == nil { branch.tipEventKey = try? Self.eventKey(of: mls) }
        for step in path where branch.pathKeys[step.epoch] == nil {
            guard let state = try? MLSGroup(serialized: step.state) else { continue }
            branch.pathKeys[step.epoch] = try? Self.eventKey(of: state)
        }
        return branch
    }

    /// The state this branch was in at `epoch`, after the fork and below its tip.
    func pathState(at epoch: UInt64) throws -> MLSGroup? {
        guard let step = path.first(where: { $0.epoch == epoch }) else { return nil }
        return try MLSGroup(serialized: step.state)
    }

    private static func eventKey(of mls: MLSGroup) throws -> GroupEventKey {
        try GroupEventKey(exporter: { try mls.exporter(label: $0, context: $1, length: $2) })
    }

    func eventKey() throws -> GroupEventKey { try tipEventKey ?? Self.eventKey(of: mls) }

    /// The branch's commits after the fork, oldest first, as the revocation rule sees them
    /// (`BranchStep`, with the steps already `known`); empty when a stored state does not read.
    func steps(rules: any GroupRules, known: inout [EventID: BranchStep]) -> [BranchStep] {
        BranchStep.path([snapshot] + path, to: mls, rules: rules, known: &known)
    }

    /// The event of the branch's last commit: with the fork epoch, what tells branches apart
    /// (two branches may share their first commits and part from each other later).
    var tipCommit: EventID { path.last?.commitEventID ?? snapshot.commitEventID }

    /// Whether `other` is this branch: the same fork epoch and the same last commit.
    func isSame(as other: AlternateBranch) -> Bool {
        isBranch(forkEpoch: other.forkEpoch, tip: other.tipCommit)
    }

    /// Whether this is the branch forking at `forkEpoch` whose last commit is `tip`.
    func isBranch(forkEpoch: UInt64, tip: EventID) -> Bool {
        self.forkEpoch == forkEpoch && tipCommit == tip
    }

    /// Whether this branch holds the same state of `epoch` as `other` (the same fork and the same
    /// commits up to that epoch): a message of that state is evidence for both.
    func holdsState(of other: AlternateBranch, atEpoch epoch: UInt64) -> Bool {
        guard forkEpoch == other.forkEpoch, snapshot.commitEventID == other.snapshot.commitEventID,
              epoch > forkEpoch, epoch <= mls.epoch, epoch <= other.mls.epoch else { return false }
        let mine = path.filter { $0.epoch < epoch }.map(\.commitEventID)
        let theirs = other.path.filter { $0.epoch < epoch }.map(\.commitEventID)
        return mine == theirs
    }
}

/// One group's fork bookkeeping: the other branches of open forks, and on the branch we are on the
/// witnesses, others' messages read and our messages sent, per epoch.
///
/// Pure: the client actor asks it what a fork, a rollback or a switch of branch changes and does the
/// I/O itself (store writes, marking messages, re-sending), so the rules can be tested alone (issue
/// 24). Methods that change what `StoredBranches` keeps return true when the record must be
/// written again; received and sent ids live only for this run (they are never stored).
struct BranchBook: Sendable {
    /// How many alternates are kept at once (a race of more commits keeps the newest).
    static let maxAlternates = 4

    /// The other branches of the group's open forks, newest last (several may be open after a race
    /// of three or more commits).
    private(set) var alternates: [AlternateBranch] = []
    /// Application senders (ours included) per epoch on the branch we are on, for the epochs a fork
    /// can still be rewound to: branch selection's witnesses (`HeldBranches`).
    private(set) var witnesses: [UInt64: Set<Data>] = [:]
    /// Others' messages by the epoch they were read in, for the epochs a competing commit can still
    /// roll back.
    private(set) var received: [UInt64: [EventID]] = [:]
    /// Our messages sent in this run by epoch: sent again when a competing commit rolls the group
    /// back below that epoch (their branch was dropped).
    private(set) var sent: [UInt64: [EventID]] = [:]

    init() {}

    /// Whether a fork is open (an alternate is kept).
    var hasOpenFork: Bool { !alternates.isEmpty }

    // MARK: Traffic on the current branch

    /// Counts `sender` as a witness of `epoch`, dropping epochs a competing commit can no longer
    /// roll back (`EpochSnapshot.retained`); true when the record must be written again. Kept
    /// whether or not a fork is open: a competing commit can still arrive after a restart, and
    /// our branch must then weigh what it had (once per sender and epoch, so the writes are few).
    mutating func noteWitness(_ sender: Data, epoch: UInt64) -> Bool {
        let before = witnesses.count
        witnesses = Self.retained(witnesses, at: epoch)
        let (added, _) = witnesses[epoch, default: []].insert(sender)
        return added || witnesses.count < before
    }

    /// Notes another member's message read in `epoch`: by epoch (a rollback below it marks it) and
    /// on every fork older than `epoch` (a switch to that branch marks it); true when the record
    /// must be written again.
    mutating func noteReceived(_ rumorID: EventID, epoch: UInt64) -> Bool {
        received = Self.retained(received, at: epoch)
        received[epoch, default: []].append(rumorID)
        for index in alternates.indices where alternates[index].forkEpoch < epoch {
            alternates[index].receivedSinceFork.append(rumorID)
        }
        return hasOpenFork
    }

    /// Notes a message of ours encrypted on the current branch on every open fork (a switch sends
    /// it again); true when the record must be written again.
    mutating func noteSentOnForks(_ rumorID: EventID) -> Bool {
        for index in alternates.indices { alternates[index].sentSinceFork.append(rumorID) }
        return hasOpenFork
    }

    /// Notes a message of ours encrypted in `epoch` (a rollback below it sends it again), dropping
    /// epochs a competing commit can no longer roll back.
    mutating func noteSent(_ rumorID: EventID, epoch: UInt64) {
        sent = Self.retained(sent, at: epoch)
        sent[epoch, default: []].append(rumorID)
    }

    /// Others' messages read and ours sent on the current branch after `forkEpoch`, oldest epoch
    /// first: what switching to a branch from that fork would drop.
    func sinceFork(_ forkEpoch: UInt64) -> (received: [EventID], sent: [EventID]) {
        (Self.after(forkEpoch, received), Self.after(forkEpoch, sent))
    }

    // MARK: Forks

    /// Keeps `branch` as an alternate; the same branch replaces its earlier copy, and only the
    /// newest `maxAlternates` stay. The record must always be written again.
    mutating func keep(_ branch: AlternateBranch) {
        alternates.removeAll { $0.isSame(as: branch) }
        alternates.append(branch.derivingPathKeys())
        alternates = Array(alternates.suffix(Self.maxAlternates))
    }

    /// Keeps `grown` in place of `branch` (the same branch one commit deeper, or forking again
    /// within it when `branch` stays).
    mutating func replace(_ branch: AlternateBranch, with grown: AlternateBranch) {
        alternates.removeAll { $0.isSame(as: branch) }
        keep(grown)
    }

    /// Forgets every branch whose first commit at `forkEpoch` is `commit`, if kept (our own
    /// commit, merged).
    mutating func removeAlternate(forkEpoch: UInt64, commit: EventID) {
        alternates.removeAll { $0.forkEpoch == forkEpoch && $0.snapshot.commitEventID == commit }
    }

    /// Counts `sender` as a witness of `epoch` on `branch` and on every other kept branch holding
    /// the same state of that epoch; true when any changed (the record must be written again).
    mutating func noteWitness(_ sender: Data, epoch: UInt64, on branch: AlternateBranch) -> Bool {
        var changed = false
        for index in alternates.indices where alternates[index].isSame(as: branch) || alternates[index].holdsState(of: branch, atEpoch: epoch) {
            changed = alternates[index].witnesses[epoch, default: []].insert(sender).inserted || changed
        }
        return changed
    }

    /// Traffic of `epoch` opened on the current branch: closes the forks `rules` consider settled
    /// by it (v1: the other member is with us; v2: the fork is past the rewind horizon); true when
    /// any was closed (the record must be written again).
    mutating func closeSettledForks(trafficEpoch epoch: UInt64, rules: any GroupRules) -> Bool {
        let open = alternates.filter { rules.forkStaysOpen(forkEpoch: $0.forkEpoch, trafficEpoch: epoch) }
        guard open.count < alternates.count else { return false }
        alternates = open
        return true
    }

    /// The branch we are on from `forkEpoch`, as an alternate to keep when we leave it: `snapshot`
    /// is the fork epoch's with our applied commit, `path` our snapshots of the epochs after it,
    /// `mls` our state, its witnesses those after the fork.
    func leaving(at forkEpoch: UInt64, snapshot: EpochSnapshot, path: [EpochSnapshot] = [], mls: MLSGroup) -> AlternateBranch {
        AlternateBranch(
            forkEpoch: forkEpoch, snapshot: snapshot, mls: mls, witnesses: witnesses.filter { $0.key > forkEpoch },
            path: path.filter { $0.epoch > forkEpoch && $0.epoch < mls.epoch }.sorted { $0.epoch < $1.epoch }
        ).derivingPathKeys()
    }

    /// A competing commit won at `forkEpoch` and the group rolled back to it (the branch we leave
    /// already kept, `leaving`): only what is at or before the fork stays. Returns others' messages
    /// read after the fork (to mark invalidated) and ours sent after it (to send again), oldest
    /// epoch first.
    ///
    /// Branches that forked from the branch we leave after `forkEpoch` fork at `forkEpoch` from
    /// the one we take (`snapshot`, our fork epoch's with the commit we applied, and `path`, our
    /// snapshots after it, start their paths; see `reroot`).
    @discardableResult
    mutating func rollBack(
        to forkEpoch: UInt64, snapshot: EpochSnapshot? = nil, path: [EpochSnapshot] = []
    ) -> (invalidate: [EventID], resend: [EventID]) {
        let dropped = sinceFork(forkEpoch)
        if let snapshot { reroot(after: forkEpoch, snapshot: snapshot, path: path) }
        witnesses = witnesses.filter { $0.key <= forkEpoch }
        received = received.filter { $0.key <= forkEpoch }
        sent = sent.filter { $0.key <= forkEpoch }
        return (dropped.received, dropped.sent)
    }

    /// We switch to `followed`: the branch we leave (`current`, the fork epoch's snapshot with the
    /// commit we applied, `path`, our snapshots after it, and `mls`, our state) becomes an
    /// alternate unless it is the same commit,
    /// `followed` is no longer one, the witnesses after the fork become `followed`'s and others'
    /// messages read are forgotten (the caller marks `followed.receivedSinceFork`). The record must
    /// always be written again.
    mutating func follow(_ followed: AlternateBranch, leaving current: EpochSnapshot?, path: [EpochSnapshot] = [], mls: MLSGroup) {
        alternates.removeAll { $0.isSame(as: followed) }
        if let current { reroot(after: followed.forkEpoch, snapshot: current, path: path) }
        // Branches within the one we take part from it where they part from it now.
        alternates = alternates.map { $0.rebased(onto: followed) }
        var others = alternates
        if let current, current.commitEventID != followed.snapshot.commitEventID {
            others.append(leaving(at: followed.forkEpoch, snapshot: current, path: path, mls: mls))
        }
        alternates = Array(others.suffix(Self.maxAlternates))
        witnesses = witnesses.filter { $0.key <= followed.forkEpoch }
            .merging(followed.witnesses.filter { $0.key > followed.forkEpoch }) { $0.union($1) }
        received = [:]
    }

    /// Branches that forked from the branch we are on after `forkEpoch` as seen from a branch
    /// that parts from ours at `forkEpoch`: they part from it there too, their paths starting with
    /// ours (`snapshot` and `path` after it), and our witnesses up to their own fork count for
    /// them. Without this they would keep a fork epoch at which the new branch is not theirs, and
    /// following one would write our old states into the new branch's snapshots.
    private mutating func reroot(after forkEpoch: UInt64, snapshot: EpochSnapshot, path: [EpochSnapshot]) {
        let ours = witnesses
        alternates = alternates.map { branch in
            guard branch.forkEpoch > forkEpoch else { return branch }
            let shared = path.filter { $0.epoch > forkEpoch && $0.epoch < branch.forkEpoch }.sorted { $0.epoch < $1.epoch }
            var moved = AlternateBranch(
                forkEpoch: forkEpoch, snapshot: snapshot, mls: branch.mls,
                witnesses: ours.filter { $0.key > forkEpoch && $0.key <= branch.forkEpoch }
                    .merging(branch.witnesses.filter { $0.key > branch.forkEpoch }) { $0.union($1) },
                path: shared + [branch.snapshot] + branch.path)
            moved.pathKeys = branch.pathKeys
            return moved.derivingPathKeys()
        }
    }

    // MARK: Persistence

    /// What the store keeps (`StoredBranches`, sealed): nil when no fork is open and no witness is
    /// kept (the record is removed).
    var record: Data? {
        hasOpenFork || !witnesses.isEmpty ? StoredBranches(alternates: alternates, witnesses: witnesses).encoded() : nil
    }

    /// Takes the alternates and witnesses of a stored `record`; throws, changing nothing, when it
    /// does not read.
    mutating func restore(_ record: Data) throws {
        let stored = try StoredBranches(encoded: record)
        alternates = stored.alternates.map { $0.derivingPathKeys() }
        witnesses = stored.witnesses
    }

    // MARK: Helpers

    /// `byEpoch` without the epochs a competing commit can no longer roll back once at `epoch`.
    private static func retained<Value>(_ byEpoch: [UInt64: Value], at epoch: UInt64) -> [UInt64: Value] {
        byEpoch.filter { $0.key + EpochSnapshot.retained > epoch }
    }

    /// The ids of the epochs after `forkEpoch`, oldest epoch first.
    private static func after(_ forkEpoch: UInt64, _ byEpoch: [UInt64: [EventID]]) -> [EventID] {
        byEpoch.filter { $0.key > forkEpoch }.sorted { $0.key < $1.key }.flatMap(\.value)
    }
}
