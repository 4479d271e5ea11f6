import Foundation

/// Where a platform finds its relay list when the user has not chosen one.
///
/// The core does not pick relays (seed 000: relays are configuration); platforms resolve a list in
/// this order: `MARMOT_RELAYS` in the environment (comma or whitespace separated), then a file with
/// one URL per line (`#` starts a comment), then the platform's own default (the CLI's embedded
/// relay, the app's public relays).
public enum RelayDefaults {
    /// Environment variable holding relay URLs.
    public static let environmentKey = "MARMOT_RELAYS"

    /// Public relays that accept Marmot's kinds, for an app without its own relay.
    public static let publicRelays: [URL] = [
        "wss://relay.damus.io", "wss://nos.lol", "wss://relay.primal.net",
    ].compactMap(URL.init(string:))

    /// The configured list: environment first, then `file`; empty when neither names a relay.
    /// Entries that are not ws:// or wss:// URLs are reported in `rejected`, never used.
    public static func configured(
        environment: [String: String] = ProcessInfo.processInfo.environment, file: URL? = nil
    ) -> (relays: [URL], rejected: [String]) {
        if let value = environment[environmentKey], !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            return parse(value.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init))
        }
        guard let file, let text = try? String(contentsOf: file, encoding: .utf8) else { return ([], []) }
        let lines = text.split(whereSeparator: \.isNewline).map { line in
            String(line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .trimmingCharacters(in: .whitespaces)
        }
        return parse(lines.filter { !$0.isEmpty })
    }

    /// Keeps ws/wss URLs with a host, in order, without duplicates.
    static func parse(_ entries: [String]) -> (relays: [URL], rejected: [String]) {
        var relays: [URL] = []
        var rejected: [String] = []
        for entry in entries {
            guard let url = URL(string: entry), let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
                let host = url.host, !host.isEmpty
            else {
                rejected.append(entry)
                continue
            }
            if !relays.contains(url) { relays.append(url) }
        }
        return (relays, rejected)
    }
}
