import Foundation

/// The public ratchet tree as transmitted: `optional<Node> ratchet_tree<V>` (RFC 9420 §12.4.3.3).
///
/// Nodes are in array order (leaf L at index 2L), `nil` for blank nodes, without the trailing blanks
/// the sender must drop. Decoding enforces the structural rules a receiver can check without tree
/// math: the list is non-empty, its last node is non-blank, and every node sits at a position of its
/// kind. Extending to a full tree and semantic checks belong to the tree layer.
public struct RatchetTreeNodes: Hashable, Sendable, TLSCodable, ExtensionPayload {
    public static let extensionType = ExtensionType.ratchetTree

    public var nodes: [Node?]

    public init(nodes: [Node?]) { self.nodes = nodes }

    public func encode(to writer: inout TLSWriter) {
        writer.writeVector { w in
            for node in nodes { w.writeOptional(node) }
        }
    }

    public init(from reader: inout TLSReader) throws {
        nodes = try reader.readVectorElements { try $0.readOptional(Node.self) }
        guard let last = nodes.last, last != nil else { throw MessageDecodingError.ratchetTreeEndsBlank }
        for (index, node) in nodes.enumerated() {
            guard let node else { continue }
            if (node.type == .leaf) != index.isMultiple(of: 2) {
                throw MessageDecodingError.ratchetTreeNodeMisplaced(index: index)
            }
        }
    }
}
