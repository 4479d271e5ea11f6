import ArgumentParser

/// `marmot`: the terminal client of Marmot, a thin renderer of the app core.
///
/// A platform target like the SwiftUI app (seed 001 §4.4): commands render state and forward intents;
/// protocol logic lives in the libraries.
@main
struct MarmotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "marmot",
        abstract: "End-to-end encrypted chats over Nostr relays (MLS, Marmot protocol).",
        subcommands: [PreviewCommand.self, RelayCommand.self],
        defaultSubcommand: PreviewCommand.self
    )
}
