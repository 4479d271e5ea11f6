import Foundation

/// An extension type code point (RFC 9420 §17.3), open so unknown and GREASE values round-trip.
public struct ExtensionType: RawRepresentable, Hashable, Sendable, TLSCodable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let applicationID = ExtensionType(rawValue: 0x0001)
    public static let ratchetTree = ExtensionType(rawValue: 0x0002)
    public static let requiredCapabilities = ExtensionType(rawValue: 0x0003)
    public static let externalPub = ExtensionType(rawValue: 0x0004)
    public static let externalSenders = ExtensionType(rawValue: 0x0005)
    /// last_resort (RFC 9420 §17.3 registry, from draft-ietf-mls-extensions).
    public static let lastResort = ExtensionType(rawValue: 0x000a)
    /// Marmot's NostrGroupData (MIP-01).
    public static let marmotGroupData = ExtensionType(rawValue: 0xF2EE)

    public var description: String { "0x" + String(rawValue, radix: 16).leftPadded(to: 4) }

    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
    public init(from reader: inout TLSReader) throws { rawValue = try reader.readUInt16() }
}

/// One extension: a type and opaque data (RFC 9420 §13.4); typed views live beside it.
public struct Extension: Hashable, Sendable, TLSCodable {
    public var type: ExtensionType
    public var data: Data

    public init(type: ExtensionType, data: Data) {
        self.type = type
        self.data = data
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(type)
        writer.writeOpaque(data)
    }

    public init(from reader: inout TLSReader) throws {
        type = try reader.read()
        data = try reader.readOpaque()
    }
}
