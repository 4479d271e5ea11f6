import Foundation
import Logging

// The platform provisions the installation secret; it comes with the core (and so with MarmotAppKit).
@_exported import struct Marmot.InstallationSecret
@_exported import struct Marmot.CrashPoint

/// How a `MarmotApp` is wired: relays, the messaging layer, time and logging.
public struct AppConfiguration: Sendable {
    /// Makes the messaging service for a session (see `MessagingService`); must be cheap and do no
    /// I/O, which belongs in `start()`.
    public typealias MessagingServiceFactory = @Sendable (SessionContext) -> any MessagingService

    /// Relays handed to the messaging service; empty means the embedded relay, which the platform or
    /// CLI decides.
    public var relayURLs: [URL]
    /// The messaging layer. Without one, accounts work but chat actions end in a
    /// "Messaging unavailable" toast; the core never pretends to send.
    public var messagingServiceFactory: MessagingServiceFactory?
    /// Source of timestamps and of "today" for display labels.
    public var clock: AppClock
    /// Time zone of display labels.
    public var timeZone: TimeZone
    /// Level of the core's logger (label `marmot.core`).
    public var logLevel: Logger.Level
    /// Where the core's log lines go; nil uses whatever `LoggingSystem` was bootstrapped with.
    public var logHandlerFactory: (@Sendable (String) -> any LogHandler)?
    /// This installation's random secret, which salts the key of each account's encrypted store
    /// (`StorageKey(deriving:installationSecret:)`). The platform keeps it beside the nsec in its
    /// secret store, makes it once (`InstallationSecret.generate()`) and passes it here; the core
    /// never writes it anywhere. Without one, the Marmot messaging service refuses to open storage.
    public var installationSecret: InstallationSecret?
    /// How long a toast stays before the core clears it (issue 16: the core owns timers).
    public var toastDuration: Duration
    /// The core's timer (toast expiry); tests inject one they control.
    public var timer: CoreTimer

    public init(
        relayURLs: [URL] = [],
        messagingServiceFactory: MessagingServiceFactory? = nil,
        clock: AppClock = .system,
        timeZone: TimeZone = .current,
        logLevel: Logger.Level = .info,
        logHandlerFactory: (@Sendable (String) -> any LogHandler)? = nil,
        installationSecret: InstallationSecret? = nil,
        toastDuration: Duration = .seconds(3),
        timer: CoreTimer = .system
    ) {
        self.toastDuration = toastDuration
        self.timer = timer
        self.relayURLs = relayURLs
        self.messagingServiceFactory = messagingServiceFactory
        self.clock = clock
        self.timeZone = timeZone
        self.logLevel = logLevel
        self.logHandlerFactory = logHandlerFactory
        self.installationSecret = installationSecret
    }

    /// The core's logger at the configured level.
    func makeLogger() -> Logger {
        var logger =
            if let factory = logHandlerFactory {
                Logger(label: "marmot.core", factory: factory)
            } else {
                Logger(label: "marmot.core")
            }
        logger.logLevel = logLevel
        return logger
    }
}
