import Foundation

/// external_pub: the HPKE key external joiners encrypt to (RFC 9420 §12.4.3.2), a GroupInfo extension.
public struct ExternalPub: Hashable, Sendable, ExtensionPayload {
    public static let extensionType = ExtensionType.externalPub

    /// Derived from the epoch's external_secret (§8.3).
    public var externalPub: HPKEPublicKey
    public init(externalPub: HPKEPublicKey) { self.externalPub = externalPub }

    public func encode(to writer: inout TLSWriter) { writer.write(externalPub) }
    public init(from reader: inout TLSReader) throws { externalPub = try reader.read() }
}
