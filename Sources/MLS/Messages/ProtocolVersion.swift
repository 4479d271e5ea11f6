/// The MLS protocol version (RFC 9420 §6), open so unknown values round-trip.
public struct ProtocolVersion: RawRepresentable, Hashable, Sendable, TLSCodable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let reserved = ProtocolVersion(rawValue: 0)
    /// MLS 1.0, the only version RFC 9420 defines.
    public static let mls10 = ProtocolVersion(rawValue: 1)

    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
    public init(from reader: inout TLSReader) throws { rawValue = try reader.readUInt16() }
}
