import Foundation

/// Remembers values that are pure functions of their input bytes, so a hot path does not parse the
/// same bytes again (issue 27: every message built its chat from the group's state, re-checking
/// each member's key on the curve and re-reading the group data, relays and all).
///
/// Bounded: when `limit` entries are held, the next new one clears it (the working set is a few
/// groups' states). Thread-safe; values must not depend on anything but the key.
package final class ParseCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Key: Value] = [:]
    private let limit: Int

    package init(limit: Int) { self.limit = limit }

    /// The value for `key`, made by `make` the first time.
    package func value(for key: Key, _ make: () -> Value) -> Value {
        if let known = lock.withLock({ values[key] }) { return known }
        let made = make()
        lock.withLock {
            if values.count >= limit { values.removeAll(keepingCapacity: true) }
            values[key] = made
        }
        return made
    }
}
