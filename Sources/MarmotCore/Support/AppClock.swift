import Foundation

/// The source of "now" for timestamps and display labels; injectable so tests pin the time.
public struct AppClock: Sendable {
    private let read: @Sendable () -> Date

    public init(_ now: @escaping @Sendable () -> Date) { self.read = now }

    /// The current instant.
    public func now() -> Date { read() }

    /// The current instant in whole Unix seconds (Nostr `created_at` precision).
    public func unixSeconds() -> Int64 { Int64(now().timeIntervalSince1970.rounded(.down)) }

    /// The system clock.
    public static let system = AppClock { Date() }

    /// A clock stopped at `date`.
    public static func fixed(_ date: Date) -> AppClock { AppClock { date } }
}

/// How the core waits for its own timers (toast expiry); injectable so tests decide when time passes.
///
/// `sleep` returns when `duration` has passed, or early when the waiting task is cancelled.
public struct CoreTimer: Sendable {
    public let sleep: @Sendable (Duration) async -> Void

    public init(sleep: @escaping @Sendable (Duration) async -> Void) { self.sleep = sleep }

    /// Real time.
    public static let system = CoreTimer { duration in try? await Task.sleep(for: duration) }
}
