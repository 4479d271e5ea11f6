import Foundation
import MLS
import Nostr

/// Each group's convergence status, as MDK 0.9.14 reports it (`ConvergenceStatus`; issue 24), so a
/// user can see why a chat is not settled instead of guessing from silence.
extension MarmotClient {
    /// Where group `id` stands: `blocked` while a competing commit forks before the oldest state we
    /// keep (nothing can weigh it), `resolving` while a commit of ours is published but no relay
    /// confirmed it, `syncing` while messages that opened wait for a state they need (a proposal
    /// still to come, or more evidence for the branch they are on), else `settled`. Events that
    /// do not decrypt are not counted: anyone who knows the `h` tag can send those.
    public func convergence(of id: GroupID) -> ConvergenceStatus {
        if let why = blockedGroups[id] { return .blocked(why) }
        if pendingCommitGroups.contains(id) { return .resolving(pendingCommits: 1) }
        let waiting = waitingCount(id)
        return waiting > 0 ? .syncing(waiting: waiting) : .settled
    }

    /// Notes that parked event `event` of `id` opened and waits for another event (`reason`), so it
    /// counts as syncing; an undecryptable one does not.
    func noteWaiting(_ event: Event, reason: DropReason, group id: GroupID) {
        switch reason {
        case .mls(.missingProposal), .heldOnCompetingBranch: parkedWaiting[id, default: []].insert(event.id)
        default: break
        }
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
        if let waiting = parkedWaiting[id] {
            let still = waiting.intersection((parked[id] ?? []).map(\.id))
            parkedWaiting[id] = still.isEmpty ? nil : still
        }
        let status = convergence(of: id)
        guard convergenceReported[id, default: .settled] != status else { return }
        convergenceReported[id] = status
        logger.info("group \(id) is \(status)")
        if let chat = try? chat(id) { emit(.convergenceChanged(chat, status)) }
    }

    /// How many of `id`'s parked events opened and wait.
    private func waitingCount(_ id: GroupID) -> Int {
        guard let waiting = parkedWaiting[id], !waiting.isEmpty else { return 0 }
        return (parked[id] ?? []).count { waiting.contains($0.id) }
    }
}
