import Foundation

/// The encrypted header naming a PrivateMessage's sender and key generation (RFC 9420 §6.3.2).
public struct SenderData: Hashable, Sendable, TLSCodable {
    public var leafIndex: LeafIndex
    public var generation: UInt32
    /// `opaque reuse_guard[4]` read as a big-endian integer; XORed into the first four nonce bytes to
    /// guard against nonce reuse after state loss (§6.3.1).
    public var reuseGuard: UInt32

    public init(leafIndex: LeafIndex, generation: UInt32, reuseGuard: UInt32) {
        self.leafIndex = leafIndex
        self.generation = generation
        self.reuseGuard = reuseGuard
    }

    /// The guard's four wire bytes.
    public var reuseGuardBytes: Data {
        Data([24, 16, 8, 0].map { UInt8(truncatingIfNeeded: reuseGuard >> $0) })
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(leafIndex)
        writer.write(generation)
        writer.write(reuseGuard)
    }

    public init(from reader: inout TLSReader) throws {
        leafIndex = try reader.read()
        generation = try reader.readUInt32()
        reuseGuard = try reader.readUInt32()
    }
}
