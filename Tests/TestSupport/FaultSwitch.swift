import Foundation

/// A switch a relay fault reads while a test flips it (thread-safe).
public final class FaultSwitch: @unchecked Sendable {
    private let lock = NSLock()
    private var on = false

    public init() {}

    public var isOn: Bool {
        get { lock.withLock { on } }
        set { lock.withLock { on = newValue } }
    }
}
