import Foundation

/// The committer's new leaf and refreshed direct-path nodes (RFC 9420 §7.6).
public struct UpdatePath: Hashable, Sendable, TLSCodable {
    public var leafNode: LeafNode
    /// One entry per node of the filtered direct path, leaf to root.
    public var nodes: [UpdatePathNode]

    public init(leafNode: LeafNode, nodes: [UpdatePathNode]) {
        self.leafNode = leafNode
        self.nodes = nodes
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(leafNode)
        writer.writeVector(nodes)
    }

    public init(from reader: inout TLSReader) throws {
        leafNode = try reader.read()
        nodes = try reader.readVector()
    }
}
