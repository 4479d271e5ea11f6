import Foundation

/// An MLSMessage wire format code point (RFC 9420 §6, §17.2), open so unknown values can be named;
/// MLSMessage itself rejects formats it has no body for.
public struct WireFormat: RawRepresentable, Hashable, Sendable, TLSCodable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let publicMessage = WireFormat(rawValue: 0x0001)
    public static let privateMessage = WireFormat(rawValue: 0x0002)
    public static let welcome = WireFormat(rawValue: 0x0003)
    public static let groupInfo = WireFormat(rawValue: 0x0004)
    public static let keyPackage = WireFormat(rawValue: 0x0005)

    public var description: String { "0x" + String(rawValue, radix: 16).leftPadded(to: 4) }

    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
    public init(from reader: inout TLSReader) throws { rawValue = try reader.readUInt16() }
}
