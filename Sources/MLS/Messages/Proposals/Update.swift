import Foundation

/// Update: replaces the sender's own leaf (RFC 9420 §12.1.2).
public struct Update: Hashable, Sendable, TLSCodable {
    public var leafNode: LeafNode
    public init(leafNode: LeafNode) { self.leafNode = leafNode }

    public func encode(to writer: inout TLSWriter) { writer.write(leafNode) }
    public init(from reader: inout TLSReader) throws { leafNode = try reader.read() }
}
