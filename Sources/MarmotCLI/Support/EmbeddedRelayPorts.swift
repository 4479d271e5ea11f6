import Foundation

/// The ports a home's embedded relay has had, kept in `$MARMOT_HOME/relay-port`: the first line is
/// the port it uses, the others ones it had before.
///
/// Chats made on the embedded relay record its URL as their group relay, so the relay must keep one
/// address for its home (issue 50): the port it first got is kept. A port another program took
/// meanwhile moves the relay to a new one, and the old addresses stay known as this home's
/// (`aliases`), so chats naming them still reach it.
struct EmbeddedRelayPorts: Equatable {
    /// The port to use first; nil for a home whose relay never ran.
    private(set) var current: Int?
    /// Ports the relay had before, newest first.
    private(set) var former: [Int] = []

    /// At most this many former ports are kept.
    static let formerKept = 16

    /// The ports kept in `file`; unreadable or invalid lines are skipped (a fresh home has none).
    static func load(_ file: URL) -> EmbeddedRelayPorts {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return EmbeddedRelayPorts() }
        let ports = text.split(whereSeparator: \.isNewline).compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            .filter { (1...65_535).contains($0) }
        var kept = EmbeddedRelayPorts()
        kept.current = ports.first
        kept.former = Array(ports.dropFirst().filter { $0 != ports.first }.prefix(formerKept))
        return kept
    }

    /// Records that the relay now listens on `port`; the port it had before becomes a former one.
    mutating func moved(to port: Int) {
        if let current, current != port { former.insert(current, at: 0) }
        former.removeAll { $0 == port }
        former = Array(former.prefix(Self.formerKept))
        current = port
    }

    /// Writes the ports to `file` (one per line, the current first).
    func save(_ file: URL) throws {
        let lines = ([current].compactMap { $0 } + former).map(String.init)
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
    }

    /// The loopback URL of the relay on `port`.
    static func url(_ port: Int) -> String { "ws://127.0.0.1:\(port)" }

    /// The former addresses, each to the current one.
    var aliases: [String: String] {
        guard let current else { return [:] }
        return Dictionary(uniqueKeysWithValues: former.map { (Self.url($0), Self.url(current)) })
    }
}
