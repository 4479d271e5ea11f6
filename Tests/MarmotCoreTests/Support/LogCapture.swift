import Logging

/// Keeps every log line the core writes, so tests can check that no secret or content is logged.
final class LogCapture: Sendable {
    private let lines = Locked<[String]>([])

    var all: [String] { lines.current }

    func record(_ line: String) { lines.update { $0.append(line) } }

    /// A handler factory for `AppConfiguration.logHandlerFactory`.
    var factory: @Sendable (String) -> any LogHandler {
        { [self] label in CapturingHandler(label: label, capture: self) }
    }
}

private struct CapturingHandler: LogHandler {
    let label: String
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = (metadata.merging(event.metadata ?? [:]) { $1 })
            .sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value)" }
            .joined(separator: " ")
        capture.record("\(event.level) \(label): \(event.message) \(fields)")
    }
}
