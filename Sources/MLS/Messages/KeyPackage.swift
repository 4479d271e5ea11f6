import Foundation

/// A client's pre-published offer to be added to a group (RFC 9420 §10).
public struct KeyPackage: Hashable, Sendable, TLSCodable {
    public var version: ProtocolVersion
    public var cipherSuite: CipherSuite
    /// The key the Welcome's group secrets are encrypted to.
    public var initKey: HPKEPublicKey
    public var leafNode: LeafNode
    public var extensions: [Extension]
    /// SignWithLabel(leaf signature key, "KeyPackageTBS", KeyPackageTBS).
    public var signature: Data

    public init(
        version: ProtocolVersion = .mls10, cipherSuite: CipherSuite, initKey: HPKEPublicKey, leafNode: LeafNode,
        extensions: [Extension], signature: Data
    ) {
        self.version = version
        self.cipherSuite = cipherSuite
        self.initKey = initKey
        self.leafNode = leafNode
        self.extensions = extensions
        self.signature = signature
    }

    /// The signed content: every field except the signature.
    public var tbs: KeyPackageTBS { KeyPackageTBS(keyPackage: self) }

    func encodeContent(to writer: inout TLSWriter) {
        writer.write(version)
        writer.write(cipherSuite)
        writer.write(initKey)
        writer.write(leafNode)
        writer.writeVector(extensions)
    }

    public func encode(to writer: inout TLSWriter) {
        encodeContent(to: &writer)
        writer.writeOpaque(signature)
    }

    public init(from reader: inout TLSReader) throws {
        version = try reader.read()
        cipherSuite = try reader.read()
        initKey = try reader.read()
        leafNode = try reader.read()
        extensions = try reader.readVector()
        signature = try reader.readOpaque()
    }
}

/// The content a KeyPackage's signature covers (RFC 9420 §10).
public struct KeyPackageTBS: Sendable, TLSEncodable {
    public let keyPackage: KeyPackage
    public init(keyPackage: KeyPackage) { self.keyPackage = keyPackage }
    public func encode(to writer: inout TLSWriter) { keyPackage.encodeContent(to: &writer) }
}
