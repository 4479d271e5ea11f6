import Foundation
import MLS
import Nostr

/// Each group's convergence status, as MDK 0.9.14 reports it (`ConvergenceStatus`; issue 24), so a
/// user can see why a chat is not settled instead of guessing from silence.
extension MarmotClient {
    /// Where group `id` stands: `blocked` while a competing commit forks before the oldest state we
    /// keep (nothing can weigh it), `resolving` while a commit of ours is published but no relay
    /// confirmed it, `syncing` while messages that opened wait for a state they need (a proposal
    /// still to come; not a message held on a branch that is not selected), else `settled`. Events that
    /// do not decrypt are not counted: anyone who knows the `h` tag can send those.
    public func convergence(of id: GroupID) -> ConvergenceStatus {
        if let engine = engines[id] { return engine.status }
        if let why = blockedGroups[id] { return .blocked(why) }
        if pendingCommitGroups.contains(id) { return .resolving(pendingCommits: 1) }
        let waiting = parked[id]?.waitingCount ?? 0
        return waiting > 0 ? .syncing(waiting: waiting) : .settled
    }

    /// Notes that parked event `event` of `id` opened and waits for another event (`reason`), so it
    /// counts as syncing; an undecryptable one does not.
    func noteWaiting(_ event: Event, reason: DropReason, group id: GroupID) {
        parked[id]?.noteWaiting(event.id, reason: reason)
    }

    /// What an event of `id` did to the group's settling: a competing commit beyond the snapshots
    /// we keep blocks it, a later commit applied on our branch lifts that.
    func noteSettling(_ id: GroupID, applied: Applied?, dropped: DropReason?) {
        if case .staleCommit(let epoch) = dropped {
            blockedGroups[id] = "a competing commit forks at epoch \(epoch), before the oldest state kept"
        } else if applied?.newEpoch == true {
            blockedGroups[id] = nil
        }
    }

    /// Reports `id`'s status when it changed since the last report (`convergenceChanged`); ids of
    /// waiting events that left the parked list (opened at last, or pushed out) are forgotten.
    func reportConvergence(_ id: GroupID) {
        parked[id]?.pruneWaiting()
        let status = convergence(of: id)
        if !status.holdsOutbound { openOutbound(id) }
        guard convergenceReported[id, default: .settled] != status else { return }
        convergenceReported[id] = status
        logger.info("group \(id) is \(status)")
        if let chat = try? chat(id) { emit(.convergenceChanged(chat, status)) }
    }

    // MARK: Outbound intents

    /// Waits, outside the exclusive section, until group `id` may take outbound work: at once when
    /// it is settled or blocked, else until it settles or `outboundHoldLimit` passes.
    ///
    /// MDK 0.9.14 queues app messages and group changes as intents while a group is not settled and
    /// makes them on the selected state afterwards (cgka-engine-canonicalization-contract.md,
    /// "Outbound Intents"): a message we encrypt while a commit of ours is unconfirmed, or while a
    /// commit waits for its proposal, would be made on a state that is about to be left, and a
    /// commit made then would race the one that is coming. The wait is bounded like MDK's pass
    /// (a proposal that never comes must not silence the chat). A blocked group does not wait: its
    /// block is a competitor no member can weigh any more, so our branch is the group's.
    func awaitOutboundTurn(_ id: GroupID) async {
        let status = convergence(of: id)
        guard status.holdsOutbound else { return }
        let token = nextSettleWaiter
        nextSettleWaiter += 1
        logger.info("outbound work of \(id) waits for the group to settle (\(status))")
        let limit = options.outboundHoldLimit
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            await self?.openOutbound(id, token: token, timedOut: true)
        }
        await withCheckedContinuation { settleWaiters[id, default: [:]][token] = $0 }
        timer.cancel()
    }

    /// Enters the exclusive section for a change of ours to group `id` once the group may take it
    /// (`awaitOutboundTurn`), so the change is made on the state the group settled on.
    func acquireSettled(_ id: GroupID) async {
        await awaitOutboundTurn(id)
        await acquire()
    }

    /// Lets outbound work of `id` go: one waiter (`token`) whose time is up, or all of them.
    func openOutbound(_ id: GroupID, token: UInt64? = nil, timedOut: Bool = false) {
        let released: [CheckedContinuation<Void, Never>]
        if let token {
            released = (settleWaiters[id]?.removeValue(forKey: token)).map { [$0] } ?? []
            if settleWaiters[id]?.isEmpty == true { settleWaiters[id] = nil }
        } else {
            released = Array((settleWaiters.removeValue(forKey: id) ?? [:]).values)
        }
        if timedOut, !released.isEmpty {
            logger.notice("group \(id) did not settle within \(options.outboundHoldLimit): our outbound work goes out on the state we have")
        }
        released.forEach { $0.resume() }
    }
}

extension ConvergenceStatus {
    /// Whether outbound work waits (MDK 0.9.14: queued while syncing or resolving).
    var holdsOutbound: Bool {
        switch self {
        case .syncing, .resolving: true
        case .settled, .blocked: false
        }
    }
}
