import Foundation

/// An interior node of the ratchet tree (RFC 9420 §7.1).
public struct ParentNode: Hashable, Sendable, TLSCodable {
    /// The key whose private half only the leaves below hold.
    public var encryptionKey: HPKEPublicKey
    /// Hash of this node's parent, chaining up the tree (§7.9).
    public var parentHash: Data
    /// Leaf indices below this node that do not yet know its private key, ascending.
    public var unmergedLeaves: [LeafIndex]

    public init(encryptionKey: HPKEPublicKey, parentHash: Data, unmergedLeaves: [LeafIndex]) {
        self.encryptionKey = encryptionKey
        self.parentHash = parentHash
        self.unmergedLeaves = unmergedLeaves
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(encryptionKey)
        writer.writeOpaque(parentHash)
        writer.writeVector(unmergedLeaves)
    }

    public init(from reader: inout TLSReader) throws {
        encryptionKey = try reader.read()
        parentHash = try reader.readOpaque()
        unmergedLeaves = try reader.readVector()
    }
}
