import Foundation

/// Writes lines to stdout and stderr without buffering, so a reading process sees each line at once
/// (`print` is block-buffered when stdout is a pipe).
///
/// When the reader of stdout has gone away (`marmot listen | head -1`), the process ends quietly with
/// status 0: the reader got what it wanted.
enum Output {
    /// One line on stdout.
    static func line(_ text: String) {
        write(Data((text + "\n").utf8))
    }

    /// One JSON object on one stdout line, keys sorted.
    static func json<Value: Encodable>(_ value: Value) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return }
        write(data + Data("\n".utf8))
    }

    /// `value` as one JSON line when `json`, else the human `text` (which may span lines).
    static func emit<Value: Encodable>(_ value: Value, json: Bool, text: @autoclosure () -> String) {
        if json { self.json(value) } else { line(text()) }
    }

    /// One diagnostic line on stderr.
    static func status(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }

    /// The error line of a failed command: `marmot: <message>` on stderr.
    static func error(_ message: String) {
        status("marmot: \(message)")
    }

    private static func write(_ data: Data) {
        do {
            try FileHandle.standardOutput.write(contentsOf: data)
        } catch {
            // stdout is closed (broken pipe): nobody is reading any more.
            Foundation.exit(0)
        }
    }
}
