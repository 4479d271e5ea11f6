import Foundation

/// An MLS group identifier (`opaque group_id<V>`, RFC 9420 §8.1); typed so it is never confused with
/// other byte strings such as Marmot's nostr_group_id.
public struct GroupID: Hashable, Sendable, TLSCodable, CustomStringConvertible {
    public var bytes: Data
    public init(_ bytes: Data) { self.bytes = bytes }

    public var description: String { LowerHex.encode(bytes) }

    public func encode(to writer: inout TLSWriter) { writer.writeOpaque(bytes) }
    public init(from reader: inout TLSReader) throws { bytes = try reader.readOpaque() }
}
