import MarmotCore
import Testing

@testable import MarmotCLI

/// `marmot send` waits for exactly the message its dispatch queued, in whatever delivery state it
/// has reached when the watch looks (the exit-7 timeout when a fast relay sent it before the watch
/// saw it pending), and never for another message of ours that appears meanwhile.
@MainActor struct SendWaitTests {
    /// The message was queued and sent before the watch looked: the outcome names it, and the wait
    /// for its delivery finds it sent. Before the fix the wait looked only for a pending message and
    /// timed out.
    @Test func aMessageSentBeforeTheWatchLooksIsFound() throws {
        var state = TUIFixtures.inChat()
        let known = Set(state.currentChat?.messages.map(\.id) ?? [])
        state.currentChat?.messages.append(TUIFixtures.message("m5", "fast", mine: true, delivery: .sent))
        state.lastOutcome = OperationOutcome(operation: .sendMessage, code: .ok, message: "", sequence: 8, messageID: "m5")
        #expect(try CLISession.queuedMessage(in: state, chatID: TUIFixtures.alice, after: 7, known: known) == "m5")
    }

    /// A message of ours that only appears (an older page loaded, already sent) is not taken for
    /// the new one: the reverted attempt returned it and the command reported a send that was not out.
    @Test func anOlderMessageOfOursLoadedMeanwhileIsNotTaken() throws {
        var state = TUIFixtures.inChat()
        let known = Set(state.currentChat?.messages.map(\.id) ?? [])
        state.currentChat?.messages.insert(TUIFixtures.message("m0", "from yesterday", mine: true, delivery: .sent), at: 0)
        #expect(try CLISession.queuedMessage(in: state, chatID: TUIFixtures.alice, after: 7, known: known) == nil)
        // An outcome from before the dispatch names another message: not ours either.
        state.lastOutcome = OperationOutcome(operation: .sendMessage, code: .ok, message: "", sequence: 7, messageID: "m0")
        #expect(try CLISession.queuedMessage(in: state, chatID: TUIFixtures.alice, after: 7, known: known) == nil)
    }

    /// The new message is still pending and no outcome is in yet: the pending message is it.
    @Test func aPendingNewMessageIsFound() throws {
        var state = TUIFixtures.inChat()
        let known = Set(state.currentChat?.messages.map(\.id) ?? [])
        state.currentChat?.messages.append(TUIFixtures.message("m6", "slow", mine: true, delivery: .pending))
        #expect(try CLISession.queuedMessage(in: state, chatID: TUIFixtures.alice, after: 7, known: known) == "m6")
    }

    /// A send that failed for another reason than "not sent" (no such chat) ends the wait with it.
    @Test func aFailureOfTheSendEndsTheWait() {
        var state = TUIFixtures.inChat()
        state.lastOutcome = OperationOutcome(operation: .sendMessage, code: .unknownChat, message: "Chat not found", sequence: 8)
        #expect(throws: CLIError.self) { try CLISession.queuedMessage(in: state, chatID: TUIFixtures.alice, after: 7, known: []) }
    }
}
