import MLS

/// The GroupContext extensions of a Marmot group and the capabilities its leaves advertise
/// (MIP-00, MIP-01; marmot-wire §2.6, §3.1).
public enum MarmotGroupExtensions {
    /// required_capabilities for a new group: extension 0xF2EE, proposal SelfRemove (0x000a) only
    /// when every invitee advertises it (none for a group created without invitees), no credential
    /// types. Wire bytes in the all-modern case: `07 02f2ee 02000a 00` (marmot-wire §3.1).
    public static func requiredCapabilities(inviteeCapabilities: [Capabilities]) -> RequiredCapabilities {
        let allSupportSelfRemove = !inviteeCapabilities.isEmpty
            && inviteeCapabilities.allSatisfy { $0.proposals.contains(.selfRemove) }
        return RequiredCapabilities(
            extensionTypes: [.marmotGroupData],
            proposalTypes: allSupportSelfRemove ? [.selfRemove] : [],
            credentialTypes: [])
    }

    /// required_capabilities for a group whose invitees are these KeyPackages.
    public static func requiredCapabilities(invitees: [KeyPackage]) -> RequiredCapabilities {
        requiredCapabilities(inviteeCapabilities: invitees.map(\.leafNode.capabilities))
    }

    /// The GroupContext extensions in MDK's order: 0xF2EE first, then required_capabilities. The
    /// ratchet tree travels in the Welcome's GroupInfo, not here (marmot-wire §3.1).
    public static func groupContextExtensions(groupData: NostrGroupData, invitees: [KeyPackage]) -> [Extension] {
        [Extension(groupData), Extension(requiredCapabilities(invitees: invitees))]
    }

    /// The GREASE code points of RFC 9420 §13.5 (0x0A0A, 0x1A1A, …, 0xEAEA).
    public static let greaseValues: [UInt16] = (0..<15).map { UInt16($0) << 12 | 0x0A0A | UInt16($0) << 4 }

    /// Whether a code point is a GREASE value, which receivers ignore.
    public static func isGrease(_ value: UInt16) -> Bool { greaseValues.contains(value) }

    /// Leaf capabilities as MDK advertises them: version mls10, suite 0x0001, extensions LastResort and
    /// NostrGroupData, proposal SelfRemove, basic credentials; with `grease`, one random GREASE value
    /// is appended to each list except versions, as OpenMLS does (marmot-wire §2.6).
    public static func leafCapabilities(grease: Bool = true) -> Capabilities {
        func g() -> [UInt16] { grease ? [greaseValues.randomElement() ?? 0x0A0A] : [] }
        return Capabilities(
            versions: [.mls10],
            cipherSuites: [.mls128X25519AES128GCMSHA256Ed25519] + g().map { CipherSuite(rawValue: $0) },
            extensions: [.lastResort, .marmotGroupData] + g().map { ExtensionType(rawValue: $0) },
            proposals: [.selfRemove] + g().map { ProposalType(rawValue: $0) },
            credentials: [.basic] + g().map { CredentialType(rawValue: $0) })
    }
}
