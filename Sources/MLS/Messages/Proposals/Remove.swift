import Foundation

/// Remove: removes the member at a leaf index (RFC 9420 §12.1.3).
public struct Remove: Hashable, Sendable, TLSCodable {
    /// Leaf index of the member to remove.
    public var removed: LeafIndex
    public init(removed: LeafIndex) { self.removed = removed }

    public func encode(to writer: inout TLSWriter) { writer.write(removed) }
    public init(from reader: inout TLSReader) throws { removed = try reader.read() }
}
