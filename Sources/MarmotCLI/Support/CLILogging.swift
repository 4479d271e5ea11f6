import Foundation
import Logging

/// Sends every log line of the process to stderr (stdout is for command output only).
enum CLILogging {
    private static let once = NSLock()
    nonisolated(unsafe) private static var done = false

    /// Bootstraps swift-log once; later calls do nothing. Levels are set per logger by the caller
    /// (core, messaging layer, relay), so the handler lets everything through.
    static func bootstrap() {
        once.lock()
        defer { once.unlock() }
        guard !done else { return }
        done = true
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .trace
            return handler
        }
    }
}
