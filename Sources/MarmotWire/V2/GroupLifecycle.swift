import Foundation

/// Component 0x800c `marmot.group.lifecycle.v1`: exactly one byte, 00 active or 01 disbanded
/// (app-components/group-lifecycle; MDK `lifecycle.rs`).
public enum GroupLifecycle: UInt8, Hashable, Sendable {
    case active = 0
    case disbanded = 1

    public var bytes: [UInt8] { [rawValue] }

    public init(bytes: [UInt8]) throws(V2ComponentError) {
        guard let first = bytes.first else { throw .truncated("group lifecycle") }
        guard bytes.count == 1 else { throw .trailingBytes("group lifecycle") }
        guard let state = GroupLifecycle(rawValue: first) else { throw .unknownLifecycleState(first) }
        self = state
    }
}
