import Foundation
import MarmotCore

extension CLISession {
    /// Waits until the core says the session has caught up (`NetworkState.isCaughtUp`: stored chats
    /// listed, the relays' stored events handled, invitations listed), so a one-shot command renders
    /// (or finds a chat or invitation in) a complete list. Fails with the outcome's code when the
    /// messaging layer could not start.
    func untilSynced(limit: Duration = .seconds(30)) async throws(CLIError) {
        _ = try await until("the session to catch up with the relays", timeout: limit) { state throws(CLIError) in
            if state.network.isCaughtUp { return true }
            if state.network.sync == .failed {
                if let outcome = state.lastOutcome, outcome.operation == .messaging { throw OutcomeExit.error(outcome) }
                throw CLIError(.failure, "messaging could not start")
            }
            return nil
        }
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
}
