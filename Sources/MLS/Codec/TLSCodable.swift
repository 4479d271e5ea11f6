import Foundation

/// A value with a TLS-presentation-language encoding (RFC 9420 §2.1).
public protocol TLSEncodable {
    func encode(to writer: inout TLSWriter)
}

/// A value decodable from its TLS-presentation-language encoding (RFC 9420 §2.1).
public protocol TLSDecodable {
    init(from reader: inout TLSReader) throws
}

public typealias TLSCodable = TLSEncodable & TLSDecodable

extension TLSEncodable {
    /// The value's serialized bytes.
    public var tlsSerialized: Data {
        var writer = TLSWriter()
        encode(to: &writer)
        return writer.data
    }
}

extension TLSDecodable {
    /// Decodes a value that must span all of `data`; trailing bytes are an error.
    public init<D: DataProtocol>(tlsSerialized data: D) throws {
        var reader = TLSReader(data)
        self = try Self(from: &reader)
        try reader.finish()
    }
}

extension UInt8: TLSCodable {
    public func encode(to writer: inout TLSWriter) { writer.write(self) }
    public init(from reader: inout TLSReader) throws { self = try reader.readUInt8() }
}

extension UInt16: TLSCodable {
    public func encode(to writer: inout TLSWriter) { writer.write(self) }
    public init(from reader: inout TLSReader) throws { self = try reader.readUInt16() }
}

extension UInt32: TLSCodable {
    public func encode(to writer: inout TLSWriter) { writer.write(self) }
    public init(from reader: inout TLSReader) throws { self = try reader.readUInt32() }
}

extension UInt64: TLSCodable {
    public func encode(to writer: inout TLSWriter) { writer.write(self) }
    public init(from reader: inout TLSReader) throws { self = try reader.readUInt64() }
}

extension Data: TLSCodable {
    /// `opaque data<V>`.
    public func encode(to writer: inout TLSWriter) { writer.writeOpaque(self) }
    public init(from reader: inout TLSReader) throws { self = try reader.readOpaque() }
}
