import Foundation
import Nostr

/// Signed events for relay tests.
enum TestEvents {
    static let alice = Keys.generate()
    static let bob = Keys.generate()

    static func make(kind: Kind = .textNote, content: String = "hello", tags: [Tag] = [],
                     createdAt: Int64 = 1_700_000_000, keys: Keys = alice) throws -> Event {
        try UnsignedEvent(pubkey: keys.publicKey, createdAt: createdAt, kind: kind, tags: tags, content: content)
            .signed(with: keys)
    }

    /// Now, in Unix seconds.
    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    /// A fresh temporary directory path for a database file.
    static func temporaryDatabasePath() -> String {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("relay-tests-\(UUID().uuidString)")
            .appendingPathComponent("relay.sqlite").path
    }
}

import Logging
import TestSupport

/// A logger at `testLogLevel` (warning unless `LOG_LEVEL` says otherwise).
func testLogger(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = Logger.Level(rawValue: testLogLevel) ?? .warning
    return logger
}
