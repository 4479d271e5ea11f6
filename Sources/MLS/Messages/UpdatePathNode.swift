import Foundation

/// One refreshed node on the committer's filtered direct path (RFC 9420 §7.6).
public struct UpdatePathNode: Hashable, Sendable, TLSCodable {
    /// The node's new public key.
    public var encryptionKey: HPKEPublicKey
    /// The path secret, encrypted to each node of the copath node's resolution, in order.
    public var encryptedPathSecret: [HPKECiphertext]

    public init(encryptionKey: HPKEPublicKey, encryptedPathSecret: [HPKECiphertext]) {
        self.encryptionKey = encryptionKey
        self.encryptedPathSecret = encryptedPathSecret
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(encryptionKey)
        writer.writeVector(encryptedPathSecret)
    }

    public init(from reader: inout TLSReader) throws {
        encryptionKey = try reader.read()
        encryptedPathSecret = try reader.readVector()
    }
}
