import Foundation

/// required_capabilities: what every member must support (RFC 9420 §11.1), a GroupContext extension.
public struct RequiredCapabilities: Hashable, Sendable, ExtensionPayload {
    public static let extensionType = ExtensionType.requiredCapabilities

    public var extensionTypes: [ExtensionType]
    public var proposalTypes: [ProposalType]
    public var credentialTypes: [CredentialType]

    public init(extensionTypes: [ExtensionType], proposalTypes: [ProposalType], credentialTypes: [CredentialType]) {
        self.extensionTypes = extensionTypes
        self.proposalTypes = proposalTypes
        self.credentialTypes = credentialTypes
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeVector(extensionTypes)
        writer.writeVector(proposalTypes)
        writer.writeVector(credentialTypes)
    }

    public init(from reader: inout TLSReader) throws {
        extensionTypes = try reader.readVector()
        proposalTypes = try reader.readVector()
        credentialTypes = try reader.readVector()
    }
}
