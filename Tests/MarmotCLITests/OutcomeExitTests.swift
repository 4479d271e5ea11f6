import MarmotCore
import Testing

@testable import MarmotCLI

/// Exit codes follow from the core's outcome codes, never from the wording of a toast (issue 16).
struct OutcomeExitTests {
    @Test(arguments: [
        ("invalid_npub", 4), ("invalid_nsec", 4), ("own_npub", 4), ("no_key_package", 5), ("relay_unreachable", 6),
        ("not_sent", 6), ("unknown_invite", 9), ("not_member", 10), ("chat_inactive", 10), ("storage_failed", 1), ("failed", 1), ("some_future_code", 1),
    ])
    func exitCodeFromOutcomeCode(raw: String, exit: Int) {
        #expect(Int(OutcomeExit.exitCode(for: OutcomeCode(raw)).rawValue) == exit)
    }

    @Test func theWordingDoesNotMatter() {
        // A message that mentions relays and key packages, with a code that says neither.
        let outcome = OperationOutcome(
            operation: .createChat, code: .invalidNpub, message: "relay key package not sent", sequence: 3)
        let error = OutcomeExit.error(outcome)
        #expect(error.code == .invalidKey)
        #expect(error.message == "relay key package not sent")
    }

    @Test func onlyAFailureOfTheAwaitedOperationAfterTheMarkCounts() {
        var state = AppState.initial
        state.lastOutcome = OperationOutcome(operation: .createChat, code: .noKeyPackage, message: "none", sequence: 2)
        #expect(OutcomeExit.failure(in: state, after: 2, of: [.createChat]) == nil)
        #expect(OutcomeExit.failure(in: state, after: 1, of: [.login]) == nil)
        #expect(OutcomeExit.failure(in: state, after: 1, of: [.createChat])?.code == .noKeyPackage)
        state.lastOutcome?.code = .ok
        #expect(OutcomeExit.failure(in: state, after: 1, of: [.createChat]) == nil)
    }
}
