import MarmotCore

/// Turns the core's operation outcomes into the CLI's error line and exit code.
///
/// The core decides what went wrong and says so with a stable `OutcomeCode` in
/// `AppState.lastOutcome`; the exit code follows from the code alone, never from the wording (issue 16).
enum OutcomeExit {
    /// The exit code for a failure code.
    static func exitCode(for code: OutcomeCode) -> CLIExitCode {
        switch code {
        case .invalidNpub, .invalidNsec, .ownNpub: .invalidKey
        case .noKeyPackage: .noKeyPackage
        case .relayUnreachable, .notSent: .notSent
        case .unknownInvite: .noInvitation
        case .notMember, .chatInactive: .notMember
        case .blocked: .blocked
        default: .failure
        }
    }

    /// The CLI error for a failed outcome: its exit code and the core's message.
    static func error(_ outcome: OperationOutcome) -> CLIError {
        CLIError(exitCode(for: outcome.code), outcome.message)
    }

    /// The failure among `operations` recorded after `mark` (an `OperationOutcome.sequence` noted
    /// before dispatching), as a CLI error; nil when there is none.
    static func failure(
        in state: AppState, after mark: UInt64, of operations: Set<UserOperation>
    ) -> CLIError? {
        guard let outcome = state.lastOutcome, outcome.sequence > mark, !outcome.isSuccess,
            operations.contains(outcome.operation)
        else { return nil }
        return error(outcome)
    }
}
