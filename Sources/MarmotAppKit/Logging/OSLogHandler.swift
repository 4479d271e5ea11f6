#if canImport(os)
    import Logging
    import os

    /// A swift-log handler writing to the unified log (os_log) on Apple platforms (seed 000: logging
    /// per platform through swift-log).
    ///
    /// Every value is logged `.public` because the core's log lines carry identifiers, counts and
    /// codes only, never message text or secrets (its actions and updates print redacted); that rule
    /// is the core's, so nothing private can reach this handler through it.
    ///
    /// Usage, once at launch: `LoggingSystem.bootstrap { OSLogHandler(subsystem: "org.marmot", label: $0) }`,
    /// or per core: `AppConfiguration(logHandlerFactory: { OSLogHandler(subsystem: "org.marmot", label: $0) })`.
    public struct OSLogHandler: LogHandler {
        public var logLevel: Logger.Level = .info
        public var metadata: Logger.Metadata = [:]
        private let log: OSLog

        public init(subsystem: String, label: String) {
            log = OSLog(subsystem: subsystem, category: label)
        }

        public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        public func log(
            level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
            file: String, function: String, line: UInt
        ) {
            let merged = metadata.merging(explicit ?? [:]) { _, new in new }
            let suffix = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            os_log("%{public}@", log: log, type: Self.type(level), "\(message)\(suffix)")
        }

        /// swift-log's levels on the unified log's types.
        static func type(_ level: Logger.Level) -> OSLogType {
            switch level {
            case .trace, .debug: .debug
            case .info, .notice: .info
            case .warning, .error: .error
            case .critical: .fault
            }
        }
    }
#endif
