import Foundation
import MLS
import Nostr

/// Disappearing messages (v2 component 0x8005): each message expires at its inner created_at plus
/// the retention of the group state it was sent in, and is deleted from the store then, ours and
/// others' alike, as MDK prunes (`AppMessageRetentionDecision`, `traits/src/app_event.rs` 24-43).
extension MarmotClient {
    /// When a message dated `createdAt` expires under `retention` seconds; nil when it never does
    /// (retention off, or a time past what Unix seconds can hold).
    static func expiry(createdAt: Int64, retention: UInt64) -> Int64? {
        guard retention > 0, retention <= UInt64(Int64.max) else { return nil }
        let (sum, overflow) = createdAt.addingReportingOverflow(Int64(retention))
        return overflow ? nil : sum
    }

    /// The expiry of a message dated `createdAt` in `session`'s current state.
    func expiry(createdAt: Int64, in session: GroupSession) -> Int64? {
        Self.expiry(createdAt: createdAt, retention: session.metadata?.retention ?? 0)
    }

    /// Deletes every message that has expired and reports each chat's as `messagesExpired`; then
    /// schedules the next sweep. Failures are logged and retried at the next sweep.
    public func sweepExpiredMessages() {
        let expired: [StoredMessage]
        do {
            expired = try store.deleteExpiredMessages(at: now())
        } catch {
            logger.warning("cannot delete expired messages: \(error)")
            scheduleExpirySweep()
            return
        }
        for (group, messages) in Dictionary(grouping: expired, by: \.mlsGroupID) {
            messages.forEach(forgetMedia)
            refreshRow(group)
            logger.info("\(messages.count) messages of \(group) expired and were deleted")
            if let chat = sessions[group]?.chat { emit(.messagesExpired(chat, messages.map(\.rumorID))) }
        }
        scheduleExpirySweep()
    }

    /// Wakes at the earliest stored expiry (at once if it passed) to sweep; replaces the wake-up
    /// scheduled before, so a message stored with an earlier expiry is not left waiting.
    func scheduleExpirySweep() {
        expirySweep?.cancel()
        expirySweep = nil
        expirySweepAt = nil
        guard started, let next = (try? store.nextMessageExpiry()) ?? nil else { return }
        expirySweepAt = next
        let delay = max(0, next - now())
        expirySweep = Task { [weak self] in
            if delay > 0 {
                try? await Task.sleep(for: .seconds(delay))
            }
            guard !Task.isCancelled else { return }
            await self?.sweepExpiredMessages()
        }
    }

    /// After storing a message that expires at `expiresAt`: sweeps at once when that is due, else
    /// makes sure the next sweep is no later than it.
    func noteExpiry(_ expiresAt: Int64?) {
        guard let expiresAt else { return }
        if expiresAt <= now() {
            sweepExpiredMessages()
        } else if expirySweepAt.map({ expiresAt < $0 }) ?? true {
            // Only an earlier expiry than the wake-up already set needs the store asked again.
            scheduleExpirySweep()
        }
    }
}
