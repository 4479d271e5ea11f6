import Foundation
import Logging
import Marmot
import NostrClient

/// Tunables of the Marmot messaging service; the defaults suit public relays.
public struct MarmotMessagingOptions: Sendable {
    /// How long a relay has to answer a publish with `OK` (and to connect) before it counts as failed.
    public var publishTimeout: Duration = .seconds(10)
    /// How long `createChat` waits for the peer's key packages.
    public var keyPackageFetchTimeout: Duration = .seconds(10)
    /// How long stored events are held back for catch-up before being handled anyway (a relay may be down).
    public var catchUpTimeout: Duration = .seconds(5)
    /// First and longest pause between reconnection attempts.
    public var reconnectBackoff: Backoff = Backoff()
    /// Publish the key package at every session start (MIP-00), so a new peer can invite this account.
    public var publishKeyPackageOnStart = true
    /// Logger level of the protocol layer (labels `marmot.client`, `marmot.relays`, `marmot.messaging`).
    public var logLevel: Logger.Level = .notice
    /// Where those log lines go; nil uses whatever `LoggingSystem` was bootstrapped with.
    public var logHandlerFactory: (@Sendable (String) -> any LogHandler)?
    /// Crash tests only: where the Marmot client kills the process (`CrashPoint`); nil in normal use.
    public var crashPoint: CrashPoint?
    /// Relay addresses the platform knows to be one of the session's relays under an address it
    /// had before (old → current); a chat naming the old one uses the current one (issue 50).
    public var relayAliases: [String: String] = [:]

    public init() {}

    func logger(_ label: String) -> Logger {
        var logger = logHandlerFactory.map { Logger(label: label, factory: $0) } ?? Logger(label: label)
        logger.logLevel = logLevel
        return logger
    }
}

/// The messaging layer as shipped: Marmot (MIP-00..03) groups over Nostr relays.
public enum MarmotMessaging {
    /// A factory for `AppConfiguration.messagingServiceFactory`; each session gets its own service,
    /// store file and relay connections. The session's `relayURLs` must not be empty: a platform
    /// without configured relays starts an embedded relay and passes its URL.
    public static func factory(_ options: MarmotMessagingOptions = MarmotMessagingOptions())
        -> AppConfiguration.MessagingServiceFactory
    {
        { context in MarmotMessagingService(context: context, options: options) }
    }
}
