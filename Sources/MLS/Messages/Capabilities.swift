import Foundation

/// What a client supports, advertised in its LeafNode (RFC 9420 §7.2); unknown values are kept.
public struct Capabilities: Hashable, Sendable, TLSCodable {
    public var versions: [ProtocolVersion]
    public var cipherSuites: [CipherSuite]
    /// Non-default extension types only (§7.2 lists the defaults that must not appear).
    public var extensions: [ExtensionType]
    /// Non-default proposal types only.
    public var proposals: [ProposalType]
    public var credentials: [CredentialType]

    public init(
        versions: [ProtocolVersion], cipherSuites: [CipherSuite], extensions: [ExtensionType],
        proposals: [ProposalType], credentials: [CredentialType]
    ) {
        self.versions = versions
        self.cipherSuites = cipherSuites
        self.extensions = extensions
        self.proposals = proposals
        self.credentials = credentials
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeVector(versions)
        writer.writeVector(cipherSuites)
        writer.writeVector(extensions)
        writer.writeVector(proposals)
        writer.writeVector(credentials)
    }

    public init(from reader: inout TLSReader) throws {
        versions = try reader.readVector()
        cipherSuites = try reader.readVector()
        extensions = try reader.readVector()
        proposals = try reader.readVector()
        credentials = try reader.readVector()
    }
}
