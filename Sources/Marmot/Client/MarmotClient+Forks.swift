import Foundation
import MLS
import Nostr
import NostrClient

/// Healing forks that the §5.7 rule alone cannot: MDK 0.8.0 keeps its own commit (or whichever it
/// applied first) in a race with it, so the rule's winner may not be the branch the other member
/// is on. The losing branch is kept as an `AlternateBranch`; traffic from the other member that
/// opens only there moves us onto it, and our messages sent on the abandoned branch go out again.
extension MarmotClient {
    /// Traffic of `epoch` opened on the current branch: forks the version considers settled by it
    /// are closed (v1: the other member is with us; v2: the fork is past the rewind horizon).
    func confirmBranch(_ id: GroupID, epoch: UInt64, rules: any GroupRules) {
        guard branchBooks[id, default: BranchBook()].closeSettledForks(trafficEpoch: epoch, rules: rules) else { return }
        saveBranches(id)
        logger.info("fork of \(id) before epoch \(epoch) settled on the current branch")
    }

    /// Our branch from `forkEpoch` as branch selection sees it: its tip epoch, its last commit's
    /// key (`applied`'s when that commit is the only one since the fork) and its witnesses.
    func currentTip(
        _ session: GroupSession, forkEpoch: UInt64, applied: EpochSnapshot?
    ) -> (epoch: UInt64, key: CommitOrderingKey?, witnesses: [UInt64: Set<Data>]) {
        let tip = session.mls.epoch
        let key = tip == forkEpoch + 1 ? applied?.orderingKey : (try? loadSnapshot(group: session.id, epoch: tip - 1))??.orderingKey
        return (tip, key, branchBooks[session.id]?.witnesses ?? [:])
    }

    /// Counts `sender` as a witness of epoch `epoch` on our branch (kept for the rewindable epochs).
    func noteWitness(_ sender: PublicKey, epoch: UInt64, in group: GroupID) {
        if branchBooks[group, default: BranchBook()].noteWitness(Data(sender.bytes), epoch: epoch) { saveBranches(group) }
    }

    /// Keeps `branch` as one of the group's alternates (several may be open after a race of three
    /// or more commits); the same branch replaces its earlier copy, and at most four are kept.
    func keepAlternate(_ branch: AlternateBranch, for id: GroupID) {
        branchBooks[id, default: BranchBook()].keep(branch)
        saveBranches(id)
    }

    /// `message` (of `epoch`) opened only on the alternate branch, at its tip or at a state on its
    /// path. When the version's rule moves us there (v2: selection over every branch held with
    /// this message counted, `heldBranches`; v1: its traffic), switch to it (`switchBranch`) and
    /// take the message in on it. Otherwise a commit grows it, and any other message is held (parked) with its sender counted on the
    /// alternate, so that later evidence can still make that branch win.
    /// v1 never follows an alternate whose first commit is not authorized on the branch we are on
    /// (N1, N2); v2 leaves a branch racing a revocation out of selection. Alternates without a
    /// key are our own unconfirmed commit or our applied branch from a snapshot stored before keys
    /// were kept; both were authorized when made, and traffic there moves us.
    func follow(
        _ alternate: AlternateBranch, message: MLSMessage, epoch: UInt64, event: Event, session: GroupSession
    ) throws(DropReason) -> Applied {
        let current: EpochSnapshot?
        do { current = try loadSnapshot(group: session.id, epoch: alternate.forkEpoch) } catch { throw .storage("\(error)") }
        // A message of the branch's tip, or of a state on its path (sent before its later commits).
        let state: MLSGroup
        do {
            state = epoch < alternate.mls.epoch ? try alternate.pathState(at: epoch) ?? alternate.mls : alternate.mls
        } catch {
            throw .storage("\(error)")
        }
        let onPath = state.epoch < alternate.mls.epoch
        let result: ProcessedMessage
        let next: MLSGroup
        do {
            (result, next) = try state.processing(message)
        } catch {
            throw .mls(error)
        }
        // A commit grows the branch from the state it was made on: the tip, or a state on the path
        // (then a new branch forks within this one there).
        let base = onPath && result.isCommit ? alternate.truncated(atEpoch: state.epoch, state: state) : alternate
        var evidence = base
        var witness: (sender: Data, epoch: UInt64)?
        switch result {
        case .application(let application):
            if let sender = NostrIdentity.publicKey(application.credential) {
                witness = (Data(sender.bytes), application.epoch)
                evidence.witnesses[application.epoch, default: []].insert(Data(sender.bytes))
            }
        case .commit(let summary):
            // Checked as on any branch before it can make this one deeper.
            try session.rules.authorize(summary, message: message, before: state, after: next)
            evidence = base.growing(by: event, key: session.rules.orderingKey(summary, message: message, before: state), to: next)
        default:
            break
        }
        // v1: its committers must hold the authority they used as our branch stands.
        let theirs = evidence.steps(rules: session.rules, known: &branchSteps)
        try session.rules.authorizeBranch(theirs, tip: session.mls)
        // Our own commit, or a branch kept from before ordering keys were stored: nothing to weigh
        // it by, and traffic there says the group is there.
        let unweighed = current.map { $0.commitEventID == alternate.snapshot.commitEventID || $0.orderingKey == nil } ?? true
            || alternate.snapshot.orderingKey == nil
        let weighed = unweighed ? nil : heldBranches(session, candidate: evidence, steps: theirs)
        let pick = weighed.flatMap { session.rules.pick($0.held) } ?? .candidate
        guard pick == .candidate else {
            if case .commit = result {
                // The other branch grows, or forks again within itself (it can still win on depth,
                // MDK 0.9.14 keeps it in its graph); messages waiting for its new epoch may open now.
                branchBooks[session.id, default: BranchBook()].replace(base, with: evidence)
                saveBranches(session.id)
                logger.info("""
                    commit \(event.id.hex) grows the other branch of the fork at epoch \(alternate.forkEpoch) \
                    of \(session.id) to epoch \(next.epoch); not selected
                    """)
                var applied = Applied(group: session.id, outcome: .processed)
                applied.branchGrew = true
                return applied
            }
            if let witness, branchBooks[session.id, default: BranchBook()].noteWitness(witness.sender, epoch: witness.epoch, on: alternate) {
                saveBranches(session.id)
            }
            // The state it opened in may be shared by branches that forked again after it: the
            // witness counts for each, and one of them may now be selected.
            if case .kept(let index) = pick, let other = weighed?.kept[index], other.holdsState(of: alternate, atEpoch: state.epoch) {
                logger.notice("switching \(session.id) to another branch that holds the state of epoch \(state.epoch)")
                return try switchBranch(to: other, leaving: current, event: event, session: session) { _ throws(DropReason) in
                    try applyGroupEvent(event)
                }
            }
            throw .heldOnCompetingBranch("traffic on the branch of \(alternate.snapshot.commitEventID.hex), not selected")
        }
        logger.notice("""
            switching \(session.id) to the other branch of the fork at epoch \(alternate.forkEpoch) \
            (commit \(alternate.snapshot.commitEventID.hex)), where the other member is \
            (decided by \(weighed.map { $0.held.selected(policy: .v1).decision?.decisiveRule?.rawValue ?? "the version's rule" } ?? "its traffic"))
            """)
        return try switchBranch(to: base, leaving: current, event: event, session: session) { switched throws(DropReason) in
            // A message of an earlier epoch of the branch opens there now with its stored key.
            onPath && !result.isCommit
                ? try applyGroupEvent(event) : try accept(result, message: message, next: next, event: event, session: switched)
        }
    }

    /// Every branch we hold for group `session.id` as one tree (`HeldBranches`): ours from the
    /// oldest open fork (our stored snapshots, our state and our witnesses), each kept branch,
    /// and `candidate` (with its commits' `steps`), the branch new evidence brings; returns the
    /// kept branches in the order `HeldBranches.Pick.kept` counts them.
    func heldBranches(
        _ session: GroupSession, candidate: AlternateBranch? = nil, steps: [BranchStep] = []
    ) -> (held: HeldBranches, kept: [AlternateBranch]) {
        let book = branchBooks[session.id] ?? BranchBook()
        let tip = session.mls.epoch
        let low = min(tip, ([candidate?.forkEpoch].compactMap { $0 } + book.alternates.map(\.forkEpoch)).min() ?? tip)
        let applied = (try? loadSnapshot(group: session.id, epoch: low)) ?? nil
        let ours = tip > low ? (applied.map { [$0] } ?? []) + storedPath(of: session, after: low) : []
        // Steps only for an unbroken path: a missing snapshot leaves our commits unweighed.
        let contiguous = ours.count == Int(tip - low) && ours.first?.epoch == low
        if branchSteps.count > BranchStep.cacheLimit { branchSteps = [:] }
        let ourSteps = contiguous ? BranchStep.path(ours, to: session.mls, rules: session.rules, known: &branchSteps) : []
        var held = HeldBranches(from: low, tip: tip, snapshots: ours, steps: ourSteps, witnesses: book.witnesses)
        for branch in book.alternates { held.add(branch, steps: branch.steps(rules: session.rules, known: &branchSteps)) }
        if let candidate { held.addCandidate(candidate, steps: steps) }
        return (held, book.alternates)
    }

    /// Moves group `session.id` onto `alternate` (snapshots of the fork epoch and of its path
    /// rewritten to its commits, its epoch keys stored, its group data: name, admins, relays, `h`
    /// and the subscription for it, with system lines for what changed), keeps the branch we leave
    /// as an alternate (a branch that revoked an authority it used keeps it from being selected
    /// again while that holds), then takes the message that decided it in with `takeIn`.
    private func switchBranch(
        to alternate: AlternateBranch, leaving current: EpochSnapshot?, event: Event, session: GroupSession,
        takeIn: (GroupSession) throws(DropReason) -> Applied
    ) throws(DropReason) -> Applied {
        let previous = session.metadata
        let adopted = session.rules.metadataIfValid(alternate.mls.extensions)
        // Our snapshots after the fork go with the branch we leave; the followed branch's replace them.
        let ourPath = storedPath(of: session, after: alternate.forkEpoch)
        do {
            try saveSnapshot(alternate.snapshot, group: session.id)
            for step in alternate.path { try saveSnapshot(step, group: session.id) }
            for stale in alternate.mls.epoch..<max(alternate.mls.epoch, session.mls.epoch) {
                try store.setSetting(EpochSnapshot.settingKey(session.id, epoch: stale), nil)
            }
            try persist(alternate.mls, for: session.id, groupData: adopted)
            for (epoch, key) in alternate.pathKeys { try store.saveGroupEventKey(key, epoch: epoch, mlsGroupID: session.id) }
            try storeCurrentEventKey(session.id)
            if try loadPendingCommit(session.id)?.event.id == alternate.snapshot.commitEventID {
                try savePendingCommit(nil, group: session.id)
            }
        } catch {
            throw .storage("\(error)")
        }
        // The branch we leave stays a candidate: more traffic there can still bring us back, as it
        // would every other member.
        branchBooks[session.id, default: BranchBook()].follow(alternate, leaving: current, path: ourPath, mls: session.mls)
        saveBranches(session.id)
        let switched = try sessionOrDrop(session.id)
        if let previous, let adopted {
            let committer = alternate.snapshot.orderingKey.flatMap { try? PublicKey(bytes: $0.committer) } ?? publicKey
            store(Self.groupDataNotices(from: previous, to: adopted, actor: committer), commit: event, group: session.id)
        }
        emit(.commitApplied(switched.chat, epoch: switched.mls.epoch, committer: nil))
        invalidateReceived(alternate.receivedSinceFork, in: session.id)
        var applied = try takeIn(switched)
        if let current, let before = try? MLSGroup(serialized: current.state) {
            lostOwnCommit(current, before: before, ours: session.mls, winner: alternate.mls, session: switched, into: &applied)
        }
        applied.newEpoch = true
        applied.switchedBranch = true
        applied.resend += alternate.sentSinceFork
        if let adopted { applied.adopt(adopted, over: session.stored) }
        return applied
    }

    /// Others' messages read and ours sent on the branch we are on after `forkEpoch`, oldest
    /// first: what leaving it there takes with it (to mark, to send again). The store keeps each
    /// message's epoch, so this holds across a restart; this run's book adds any the store has
    /// no epoch for.
    func sinceFork(_ id: GroupID, _ forkEpoch: UInt64) -> (received: [EventID], sent: [EventID]) {
        let book = (branchBooks[id] ?? BranchBook()).sinceFork(forkEpoch)
        let stored: [StoredMessage]
        do {
            stored = try store.messages(mlsGroupID: id, afterEpoch: forkEpoch)
        } catch {
            logger.warning("cannot read the messages of \(id) after epoch \(forkEpoch): \(error)")
            stored = []
        }
        func merged(_ fromStore: [EventID], _ fromBook: [EventID]) -> [EventID] {
            var seen = Set(fromStore)
            return fromStore + fromBook.filter { seen.insert($0).inserted }
        }
        return (
            merged(stored.filter { !$0.isMine }.map(\.rumorID), book.received),
            merged(stored.filter(\.isMine).map(\.rumorID), book.sent))
    }

    /// Our stored snapshots of the epochs after `forkEpoch` below our tip, oldest first: the
    /// path of the branch we are on, kept with it when we leave it.
    func storedPath(of session: GroupSession, after forkEpoch: UInt64) -> [EpochSnapshot] {
        guard session.mls.epoch > forkEpoch + 1 else { return [] }
        return ((forkEpoch + 1)..<session.mls.epoch).compactMap { (try? loadSnapshot(group: session.id, epoch: $0)) ?? nil }
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
                // On the branch we are on now: ours there, and our witness there.
                noteOwnSend(rumorID, in: id)
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
        if branchBooks[session.id, default: BranchBook()].noteReceived(rumorID, epoch: session.mls.epoch) {
            saveBranches(session.id)
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

extension ProcessedMessage {
    /// Whether another member's commit was processed.
    var isCommit: Bool {
        if case .commit = self { true } else { false }
    }
}
