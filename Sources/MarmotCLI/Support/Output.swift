import Foundation

/// Writes lines to stdout and stderr without buffering, so a reading process sees each line at once
/// (`print` is block-buffered when stdout is a pipe).
enum Output {
    /// One line on stdout.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// One JSON object on one stdout line, keys sorted.
    static func json<Value: Encodable>(_ value: Value) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// `value` as one JSON line when `json`, else the human `text` (which may span lines).
    static func emit<Value: Encodable>(_ value: Value, json: Bool, text: @autoclosure () -> String) {
        if json { self.json(value) } else { line(text()) }
    }

    /// One diagnostic line on stderr.
    static func status(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// The error line of a failed command: `marmot: <message>` on stderr.
    static func error(_ message: String) {
        status("marmot: \(message)")
    }
}
