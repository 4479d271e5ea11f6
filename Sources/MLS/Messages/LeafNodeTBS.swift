import Foundation

/// The content a LeafNode's signature covers (RFC 9420 §7.2).
///
/// Leaves made inside a group (update and commit sources) also bind the group's id and their own leaf
/// index, so a signed leaf cannot be replayed into another group or position.
public struct LeafNodeTBS: Sendable, TLSEncodable {
    public let leafNode: LeafNode
    /// group_id and leaf_index; present exactly when the source is update or commit.
    public let groupBinding: (groupID: GroupID, leafIndex: LeafIndex)?

    /// Fails when a binding is given for a key_package leaf or missing for an update or commit leaf.
    public init(leafNode: LeafNode, groupID: GroupID? = nil, leafIndex: LeafIndex? = nil) throws {
        switch (leafNode.source.signsGroupContext, groupID, leafIndex) {
        case (false, nil, nil):
            groupBinding = nil
        case (true, let groupID?, let leafIndex?):
            groupBinding = (groupID, leafIndex)
        default:
            throw MessageEncodingError.leafNodeContextMismatch
        }
        self.leafNode = leafNode
    }

    public func encode(to writer: inout TLSWriter) {
        leafNode.encodeContent(to: &writer)
        if let groupBinding {
            writer.write(groupBinding.groupID)
            writer.write(groupBinding.leafIndex)
        }
    }
}
