import Foundation

/// The validity window of a KeyPackage's leaf, in seconds since the Unix epoch (RFC 9420 §7.2).
public struct Lifetime: Hashable, Sendable, TLSCodable {
    public var notBefore: UInt64
    public var notAfter: UInt64

    public init(notBefore: UInt64, notAfter: UInt64) {
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// True when `time` (Unix seconds) lies inside the window, bounds included.
    public func contains(_ time: UInt64) -> Bool { notBefore <= time && time <= notAfter }

    public func encode(to writer: inout TLSWriter) {
        writer.write(notBefore)
        writer.write(notAfter)
    }

    public init(from reader: inout TLSReader) throws {
        notBefore = try reader.readUInt64()
        notAfter = try reader.readUInt64()
    }
}
