import Foundation

/// Which relays a command uses, and where that choice came from.
///
/// Precedence: `--relay` options, then `MARMOT_RELAYS` (comma or space separated), then the file
/// `$MARMOT_HOME/relays` (one URL per line, `#` starts a comment), else the embedded relay.
struct RelayPlan: Equatable {
    enum Source: String, Equatable {
        case option = "--relay"
        case environment = "MARMOT_RELAYS"
        case file = "relays file"
        case embedded
    }

    /// The configured relays; empty for `.embedded`.
    let urls: [URL]
    let source: Source

    var usesEmbeddedRelay: Bool { source == .embedded }

    static func resolve(
        options: [String], environment: [String: String] = ProcessInfo.processInfo.environment, home: URL
    ) throws(CLIError) -> RelayPlan {
        if !options.isEmpty { return RelayPlan(urls: try parse(options, from: "--relay"), source: .option) }
        if let variable = environment["MARMOT_RELAYS"] {
            let items = variable.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
            if !items.isEmpty { return RelayPlan(urls: try parse(items, from: "MARMOT_RELAYS"), source: .environment) }
        }
        let file = home.appendingPathComponent("relays")
        if let text = try? String(contentsOf: file, encoding: .utf8) {
            let items = text.split(whereSeparator: \.isNewline)
                .map { $0.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            if !items.isEmpty { return RelayPlan(urls: try parse(items, from: file.path), source: .file) }
        }
        return RelayPlan(urls: [], source: .embedded)
    }

    /// Parses relay URLs, keeping their order and dropping duplicates.
    private static func parse(_ items: [String], from origin: String) throws(CLIError) -> [URL] {
        var urls: [URL] = []
        for item in items {
            guard let url = URL(string: item), let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
                url.host?.isEmpty == false
            else {
                throw CLIError(.usage, "invalid relay URL \"\(item)\" (from \(origin)): expected ws://host[:port] or wss://…")
            }
            if !urls.contains(url) { urls.append(url) }
        }
        return urls
    }
}
