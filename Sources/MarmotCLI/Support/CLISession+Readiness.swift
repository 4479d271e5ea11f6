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

    /// Waits until the session's key package publication has ended (the core's network slice), so
    /// peers can start a chat with this account as soon as the command returns; fails with
    /// `.notSent` when no relay accepted it.
    func untilOnline(limit: Duration = .seconds(30)) async throws(CLIError) {
        let published = try await until("the key package to be published", timeout: limit) { state in
            state.network.keyPackagePublished
        }
        guard published else {
            throw CLIError(
                .notSent,
                "no relay accepted this account's key package (\(state.network.statusText)); "
                    + "others cannot start a chat with it until it is published")
        }
    }

    private func settle(quiet: Duration, limit: Duration) async throws(CLIError) {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if await !watchForChange(within: quiet) { return }
        }
    }
}
