import ArgumentParser
import Foundation

/// `marmot demo` (what `make run` shows): the real stack end to end, offline.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Offline showcase: Alice and Bob chat end to end through an embedded relay.",
        discussion: """
            Creates two identities in temporary homes, starts an in-memory relay on 127.0.0.1, and runs \
            two app cores in this process: Alice starts a chat with Bob's npub (key package, MLS group, \
            gift-wrapped welcome), Bob accepts the invitation that appears in his list, they exchange four messages, and the transcript is printed with each \
            message's delivery state (pending → sent) and timings. Everything is removed afterwards.

            Examples:
              marmot
              marmot demo --json
            """
    )

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await DemoFlow.run(Invocation(output: output))
    }
}
