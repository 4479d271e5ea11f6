import Foundation
import MLS
import Nostr

/// Bounds on what strangers can make us keep, and clean-ups that run on a timer, not only at start
/// (issue 26): pending invitations are capped per inviter and in all and expire; key package
/// rotation after Welcomes is coalesced; the private halves of consumed key packages, and epoch
/// snapshots and event keys of past epochs, are forgotten once old enough (forward secrecy,
/// RFC 9420 §16.8: old secrets kept are secrets that can leak).
extension MarmotClient {
    /// Why a Welcome from `inviter` is not taken now: that inviter already has
    /// `maxPendingInvitesPerInviter` invitations waiting for an answer, or all do together
    /// `maxPendingInvites`. Checked right after unwrapping, before any MLS work, so a stranger
    /// cannot fill the store or make us rotate key packages without end.
    func invitationRoomRefusal(from inviter: PublicKey) -> String? {
        let pending = sessions.values.filter { $0.stored.status == .pending }
        if pending.count >= options.maxPendingInvites {
            return "\(pending.count) invitations already wait for an answer"
        }
        let fromInviter = pending.filter { session in
            guard let data = try? store.invitation(mlsGroupID: session.id) else { return false }
            return (try? InviteRecord(encoded: data))?.inviter == inviter
        }.count
        guard fromInviter < options.maxPendingInvitesPerInviter else {
            return "\(fromInviter) invitations from \(inviter.hex) already wait for an answer"
        }
        return nil
    }

    /// Rotates our key package of `version` after a Welcome consumed it, at most once per
    /// `keyPackageRotationInterval`: Welcomes arriving faster share one rotation at the interval's
    /// end (a consumed key package still opens late Welcomes during its grace period).
    func requestKeyPackageRotation(_ version: MarmotVersion) {
        guard !rotationScheduled.contains(version) else { return }
        let wait = lastKeyPackageRotation[version].map { $0 + options.keyPackageRotationInterval - now() } ?? 0
        rotationScheduled.insert(version)
        Task { [weak self] in
            if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
            await self?.rotateNow(version)
        }
    }

    private func rotateNow(_ version: MarmotVersion) async {
        rotationScheduled.remove(version)
        lastKeyPackageRotation[version] = now()
        await rotateKeyPackage(version)
        // The consumed key package's grace period now has an end: wake for it.
        scheduleHousekeeping()
    }

    // MARK: Timer

    /// Runs every time-based clean-up, then wakes again after `housekeepingInterval`, or earlier
    /// when a consumed key package's grace period ends before that.
    public func housekeep() async {
        forgetSpentKeyPackages()
        pruneAgedEpochState()
        await expireOldInvites()
        scheduleHousekeeping()
    }

    func scheduleHousekeeping() {
        housekeeping?.cancel()
        housekeeping = nil
        guard started else { return }
        var wake = now() + max(1, options.housekeepingInterval)
        if let graceEnd = nextGraceEnd() { wake = min(wake, graceEnd + 1) }
        let delay = max(1, wake - now())
        housekeeping = Task { [weak self] in
            try? await Task.sleep(for: .seconds(delay))
            guard !Task.isCancelled else { return }
            await self?.housekeep()
        }
    }

    /// When the earliest consumed key package's grace period ends; nil when none waits.
    private func nextGraceEnd() -> Int64? {
        guard let stored = try? store.keyPackages() else { return nil }
        return stored.compactMap { consumedAt($0.ref) }.min().map { $0 + options.consumedKeyPackageGrace }
    }

    private func consumedAt(_ ref: KeyPackageRef) -> Int64? {
        (try? store.setting(ClientSettings.keyPackageConsumed(ref))).flatMap { $0 }
            .flatMap { Int64(String(decoding: $0, as: UTF8.self)) }
    }

    // MARK: Steps

    /// Forgets the private halves of key packages that are no longer offered: consumed ones once
    /// `consumedKeyPackageGrace` has passed, expired ones at once. `keep` are the current ones.
    func forgetSpentKeyPackages(keeping keep: Set<KeyPackageRef>? = nil) {
        guard let stored = try? store.keyPackages() else { return }
        let current = keep ?? Set(MarmotVersion.allCases.compactMap { version in
            stored.first { isUsable($0) && Self.version(of: $0) == version }?.ref
        })
        let graceEnd = now() - options.consumedKeyPackageGrace
        for record in stored where !current.contains(record.ref) {
            let consumed = consumedAt(record.ref)
            let expired = consumed == nil && !isUsable(record)
            guard expired || (consumed.map { $0 <= graceEnd } ?? false) else { continue }
            do {
                try store.deleteKeyPackage(ref: record.ref)
                try store.setSetting(ClientSettings.keyPackageConsumed(record.ref), nil)
                logger.info("forgot the private half of key package \(record.ref)")
            } catch {
                logger.warning("cannot forget key package \(record.ref): \(error)")
            }
        }
    }

    /// Forgets, in every group, the epoch snapshots whose commit is older than `snapshotMaxAge` and
    /// the event keys of the epochs those commits ended: a quiet group would otherwise keep them
    /// until its next commit. Epochs whose end time is unknown keep the count rule alone.
    func pruneAgedEpochState() {
        let oldest = now() - options.snapshotMaxAge
        for session in sessions.values where session.stored.status != .pending {
            let id = session.id, epoch = session.mls.epoch
            var lastAged: UInt64?
            for back in 1...EpochSnapshot.retained where epoch >= back {
                guard let snapshot = try? loadSnapshot(group: id, epoch: epoch - back),
                      snapshot.anchorCreatedAt < oldest
                else { continue }
                lastAged = max(lastAged ?? 0, snapshot.epoch)
            }
            guard let lastAged else { continue }
            do {
                for old in (lastAged >= EpochSnapshot.retained ? lastAged - EpochSnapshot.retained : 0)...lastAged {
                    try store.setSetting(EpochSnapshot.settingKey(id, epoch: old), nil)
                }
                try store.pruneGroupEventKeys(mlsGroupID: id, keepingFrom: lastAged + 1)
                sessions[id]?.eventKeys = try store.groupEventKeys(mlsGroupID: id).filter { $0.epoch <= epoch }
                logger.info("forgot the snapshots and event keys of \(id) up to epoch \(lastAged) (older than \(options.snapshotMaxAge) s)")
            } catch {
                logger.warning("cannot prune the past epochs of \(id): \(error)")
            }
        }
    }

    /// Declines invitations nobody answered within `inviteMaxAge`, and reports them gone.
    func expireOldInvites() async {
        let limit = now() - options.inviteMaxAge
        let stale = invites().filter { $0.receivedAt < limit }
        guard !stale.isEmpty else { return }
        var expired: [GroupID] = []
        for invite in stale {
            do {
                try await declineInvite(invite.id)
                expired.append(invite.id)
            } catch {
                logger.warning("cannot expire the invitation to \(invite.id): \(error)")
            }
        }
        logger.info("\(expired.count) invitations older than \(options.inviteMaxAge) s expired")
        if !expired.isEmpty { emit(.invitesExpired(expired)) }
    }
}
