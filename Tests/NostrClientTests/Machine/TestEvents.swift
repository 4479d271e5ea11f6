import Nostr

/// Signed events for tests, from fixed or fresh keys.
enum TestEvents {
    static let alice = Keys.generate()

    static func make(kind: Kind = .textNote, content: String = "hello", tags: [Tag] = [],
                     createdAt: Int64 = 1_700_000_000, keys: Keys = alice) throws -> Event {
        try UnsignedEvent(pubkey: keys.publicKey, createdAt: createdAt, kind: kind, tags: tags, content: content)
            .signed(with: keys)
    }

    /// `event` with its content changed but id and signature kept: fails verification.
    static func tampered(_ event: Event) -> Event {
        Event(id: event.id, pubkey: event.pubkey, createdAt: event.createdAt, kind: event.kind,
              tags: event.tags, content: event.content + "!", sig: event.sig)
    }

    /// `event` re-signed over the same id by another key: right id, wrong signature.
    static func badSignature(_ event: Event) -> Event {
        let other = Keys.generate()
        return Event(id: event.id, pubkey: event.pubkey, createdAt: event.createdAt, kind: event.kind,
                     tags: event.tags, content: event.content, sig: other.sign(event.id.bytes))
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
