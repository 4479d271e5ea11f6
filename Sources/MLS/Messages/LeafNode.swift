import Foundation

/// A member's signed leaf: keys, credential, capabilities, source and extensions (RFC 9420 §7.2).
public struct LeafNode: Hashable, Sendable, TLSCodable {
    public var encryptionKey: HPKEPublicKey { didSet { encoding = nil } }
    public var signatureKey: SignaturePublicKey { didSet { encoding = nil } }
    public var credential: Credential { didSet { encoding = nil } }
    public var capabilities: Capabilities { didSet { encoding = nil } }
    public var source: LeafNodeSource { didSet { encoding = nil } }
    public var extensions: [Extension] { didSet { encoding = nil } }
    /// SignWithLabel(signature key, "LeafNodeTBS", LeafNodeTBS).
    public var signature: Data { didSet { encoding = nil } }
    /// The bytes this leaf was decoded from, written back as they are: a leaf is encoded whole for
    /// every stored group state and every Welcome's ratchet tree, and at 200 members re-encoding
    /// each leaf's vectors cost more than the commit's own checks (issue 27). Any change to a field
    /// forgets it; equality and hashing see the fields only.
    private var encoding: [UInt8]?

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
        if let encoding {
            writer.writeFixed(encoding)
            return
        }
        encodeContent(to: &writer)
        writer.writeOpaque(signature)
    }

    public init(from reader: inout TLSReader) throws {
        let start = reader.position
        encryptionKey = try reader.read()
        signatureKey = try reader.read()
        credential = try reader.read()
        capabilities = try reader.read()
        source = try reader.read()
        extensions = try reader.readVector()
        signature = try reader.readOpaque()
        encoding = reader.consumed(since: start)
    }

    public static func == (lhs: LeafNode, rhs: LeafNode) -> Bool {
        lhs.encryptionKey == rhs.encryptionKey && lhs.signatureKey == rhs.signatureKey && lhs.credential == rhs.credential
            && lhs.capabilities == rhs.capabilities && lhs.source == rhs.source && lhs.extensions == rhs.extensions
            && lhs.signature == rhs.signature
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(encryptionKey)
        hasher.combine(signatureKey)
        hasher.combine(credential)
        hasher.combine(capabilities)
        hasher.combine(source)
        hasher.combine(extensions)
        hasher.combine(signature)
    }
}
