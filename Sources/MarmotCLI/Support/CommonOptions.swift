import ArgumentParser
import Foundation
import Logging

/// `--json` and `--verbose`, shared by every scriptable command.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print one JSON object per line on stdout instead of text.")
    var json = false

    @Flag(name: .shortAndLong, help: "Log to stderr (-v info, -vv debug, -vvv trace); MARMOT_LOG=<level> also works.")
    var verbose: Int

    /// The log level: from `-v` flags, else `$MARMOT_LOG`, else warnings only.
    var logLevel: Logger.Level {
        switch verbose {
        case 0:
            let variable = ProcessInfo.processInfo.environment["MARMOT_LOG"]
            return variable.flatMap { Logger.Level(rawValue: $0.lowercased()) } ?? .warning
        case 1: return .info
        case 2: return .debug
        default: return .trace
        }
    }
}

/// `--relay URL`, repeatable, for every command that talks to relays.
struct RelayOptions: ParsableArguments {
    @Option(
        name: .customLong("relay"),
        help: ArgumentHelp(
            "Relay URL (ws:// or wss://); repeat for several. Overrides MARMOT_RELAYS and $MARMOT_HOME/relays.",
            valueName: "url"))
    var relays: [String] = []
}
