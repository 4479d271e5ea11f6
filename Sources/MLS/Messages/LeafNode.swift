import Foundation

/// A member's signed leaf: keys, credential, capabilities, source and extensions (RFC 9420 §7.2).
public struct LeafNode: Hashable, Sendable, TLSCodable {
    public var encryptionKey: HPKEPublicKey
    public var signatureKey: SignaturePublicKey
    public var credential: Credential
    public var capabilities: Capabilities
    public var source: LeafNodeSource
    public var extensions: [Extension]
    /// SignWithLabel(signature key, "LeafNodeTBS", LeafNodeTBS).
    public var signature: Data

    public init(
        encryptionKey: HPKEPublicKey, signatureKey: SignaturePublicKey, credential: Credential, capabilities: Capabilities,
        source: LeafNodeSource, extensions: [Extension], signature: Data
    ) {
        self.encryptionKey = encryptionKey
        self.signatureKey = signatureKey
        self.credential = credential
        self.capabilities = capabilities
        self.source = source
        self.extensions = extensions
        self.signature = signature
    }

    /// Writes every field above the signature; shared by the LeafNode and LeafNodeTBS encodings.
    func encodeContent(to writer: inout TLSWriter) {
        writer.write(encryptionKey)
        writer.write(signatureKey)
        writer.write(credential)
        writer.write(capabilities)
        writer.write(source)
        writer.writeVector(extensions)
    }

    public func encode(to writer: inout TLSWriter) {
        encodeContent(to: &writer)
        writer.writeOpaque(signature)
    }

    public init(from reader: inout TLSReader) throws {
        encryptionKey = try reader.read()
        signatureKey = try reader.read()
        credential = try reader.read()
        capabilities = try reader.read()
        source = try reader.read()
        extensions = try reader.readVector()
        signature = try reader.readOpaque()
    }
}
