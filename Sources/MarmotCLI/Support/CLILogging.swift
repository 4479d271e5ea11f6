import Foundation
import Logging

/// Sends every log line of the process to stderr (stdout is for command output only).
enum CLILogging {
    private static let once = NSLock()
    nonisolated(unsafe) private static var done = false

    /// Bootstraps swift-log once at `level`; later calls do nothing. Loggers that set their own
    /// level (core, messaging layer, relay) keep it; the others (the protocol layer's `MarmotLog`
    /// loggers) start at `level`, so a run without `-v` prints no info or debug line (issue 30).
    static func bootstrap(level: Logger.Level) {
        once.lock()
        defer { once.unlock() }
        guard !done else { return }
        done = true
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
