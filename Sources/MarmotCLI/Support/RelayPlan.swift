import Foundation
import MarmotCore

/// Which relays a command uses, and where that choice came from.
///
/// Precedence: `--relay` options, then the platform defaults of `RelayDefaults` (`MARMOT_RELAYS`,
/// comma or space separated, then the file `$MARMOT_HOME/relays`, one URL per line, `#` comments),
/// else the embedded relay. A configured entry that is not a ws:// or wss:// URL is a usage error.
struct RelayPlan: Equatable {
    enum Source: String, Equatable {
        case option = "--relay"
        case configured = "MARMOT_RELAYS or the relays file"
        case embedded
    }

    /// The configured relays; empty for `.embedded`.
    let urls: [URL]
    let source: Source

    var usesEmbeddedRelay: Bool { source == .embedded }

    static func resolve(
        options: [String], environment: [String: String] = ProcessInfo.processInfo.environment, home: URL
    ) throws(CLIError) -> RelayPlan {
        if !options.isEmpty {
            // The same parsing rules as the configured list, applied to the option values.
            let parsed = RelayDefaults.configured(environment: [RelayDefaults.environmentKey: options.joined(separator: " ")])
            try reject(parsed.rejected, from: "--relay")
            return RelayPlan(urls: parsed.relays, source: .option)
        }
        let file = home.appendingPathComponent("relays")
        let configured = RelayDefaults.configured(environment: environment, file: file)
        try reject(configured.rejected, from: "\(RelayDefaults.environmentKey) or \(file.path)")
        if !configured.relays.isEmpty { return RelayPlan(urls: configured.relays, source: .configured) }
        return RelayPlan(urls: [], source: .embedded)
    }

    private static func reject(_ entries: [String], from origin: String) throws(CLIError) {
        guard let first = entries.first else { return }
        throw CLIError(.usage, "invalid relay URL \"\(first)\" (from \(origin)): expected ws://host[:port] or wss://host")
    }
}
