import Foundation
import MarmotCore

extension CLISession {
    /// Waits until the messaging layer has loaded this account's chats and caught up with the
    /// relays, so a one-shot command renders (or finds a chat in) a complete list.
    ///
    /// `AppState` has no flag for this yet, so it waits for the core to go quiet: no committed change
    /// for `quiet` (each change restarts the wait), at most `limit`.
    func untilSynced(quiet: Duration = .milliseconds(400), limit: Duration = .seconds(15)) async throws(CLIError) {
        try await settle(quiet: quiet, limit: limit)
    }

    /// Waits until the messaging layer is connected and has published this account's key package,
    /// so peers can start a chat with it as soon as the command returns.
    ///
    /// `AppState` has no flag for this yet; see `untilSynced`.
    func untilOnline(quiet: Duration = .milliseconds(400), limit: Duration = .seconds(15)) async throws(CLIError) {
        try await settle(quiet: quiet, limit: limit)
    }

    private func settle(quiet: Duration, limit: Duration) async throws(CLIError) {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if await !watchForChange(within: quiet) { return }
        }
    }
}
