import Foundation

/// Component 0x8005 `marmot.group.message-retention.v1`: retention in seconds as a u64 big-endian,
/// exactly 8 bytes (MDK `decode_message_retention` in cgka-engine `app_components.rs`). White Noise
/// sets it when disappearing messages are on.
public struct MessageRetention: Hashable, Sendable {
    public let seconds: UInt64

    public init(seconds: UInt64) { self.seconds = seconds }

    public var bytes: [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: seconds >> (8 * UInt64($0))) } }

    public init(bytes: [UInt8]) throws(V2ComponentError) {
        guard bytes.count == 8 else { throw .wrongLength("message retention", expected: 8, actual: bytes.count) }
        seconds = bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
