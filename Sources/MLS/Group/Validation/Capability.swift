import Foundation

/// One thing a client may or may not support, as advertised in its LeafNode's Capabilities
/// (RFC 9420 §7.2) and demanded by a group (§11.1, §13.4).
public enum Capability: Hashable, Sendable, CustomStringConvertible {
    case version(ProtocolVersion)
    case cipherSuite(CipherSuite)
    case extensionType(ExtensionType)
    case proposalType(ProposalType)
    case credentialType(CredentialType)

    public var description: String {
        switch self {
        case .version(let v): "protocol version \(v.rawValue)"
        case .cipherSuite(let s): "cipher suite \(s)"
        case .extensionType(let t): "extension type \(t)"
        case .proposalType(let t): "proposal type \(t)"
        case .credentialType(let t): "credential type \(t)"
        }
    }
}

extension Capabilities {
    /// Whether the client supports `capability`: default extension and proposal types always are
    /// (§7.2); everything else must be listed. GREASE values are listed but mean nothing, so a
    /// requirement for one is simply matched like any other value.
    public func supports(_ capability: Capability) -> Bool {
        switch capability {
        case .version(let v): versions.contains(v)
        case .cipherSuite(let s): cipherSuites.contains(s)
        case .extensionType(let t): t.isDefault || extensions.contains(t)
        case .proposalType(let t): t.isDefault || proposals.contains(t)
        case .credentialType(let t): credentials.contains(t)
        }
    }

    /// The first requirement of a required_capabilities extension this client does not support (§11.1).
    public func firstMissing(of required: RequiredCapabilities) -> Capability? {
        let demanded = required.extensionTypes.map(Capability.extensionType)
            + required.proposalTypes.map(Capability.proposalType)
            + required.credentialTypes.map(Capability.credentialType)
        return demanded.first { !supports($0) }
    }
}

extension RequiredCapabilities {
    /// The required_capabilities extension of a GroupContext's extension list, if present (§11.1).
    public static func from(_ extensions: [Extension]) throws -> RequiredCapabilities? {
        try extensions.payload(RequiredCapabilities.self)
    }
}
