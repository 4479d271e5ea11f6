import Foundation

/// Places in sending where a test can have the process killed (SIGKILL) to prove that nothing is
/// lost on a crash. Never set in normal use: `MarmotClient.Options.crashPoint` is nil by default
/// and only the CLI's `MARMOT_TEST_CRASH_AT` (documented for tests) sets it.
public struct CrashPoint: RawRepresentable, Sendable, Hashable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The message is stored as pending, not yet encrypted.
    public static let afterQueue = CrashPoint(rawValue: "after-queue")
    /// Encrypted and its event stored, not yet published.
    public static let afterEncrypt = CrashPoint(rawValue: "after-encrypt")
    /// A relay answered (it holds the event), the delivery not yet recorded.
    public static let afterPublish = CrashPoint(rawValue: "after-publish")
}

extension MarmotClient {
    /// Kills the process at `point` when the options ask for it (crash tests only).
    func crashIfRequested(_ point: CrashPoint) {
        guard options.crashPoint == point else { return }
        logger.critical("test crash point \(point.rawValue) reached: killing the process")
        kill(getpid(), SIGKILL)
    }
}
