import Foundation

extension Capabilities {
    /// The capabilities MDK 0.8.0 advertises (marmot-wire §2.6): version mls10, suite 0x0001, extensions
    /// last_resort (0x000a) and NostrGroupData (0xf2ee), proposal self_remove (0x000a), basic
    /// credentials. Default types (§7.2) are not listed. With `grease`, each of the suite, extension,
    /// proposal and credential lists gets one random GREASE value as MDK does (§13.5).
    public static func marmotDefault(grease: Bool = true) -> Capabilities {
        var generator = SystemRandomNumberGenerator()
        return marmotDefault(grease: grease, using: &generator)
    }

    /// `marmotDefault(grease:)` with a caller-chosen generator for the GREASE picks.
    public static func marmotDefault<G: RandomNumberGenerator>(grease: Bool, using generator: inout G) -> Capabilities {
        let base = Capabilities(
            versions: [.mls10], cipherSuites: [.mls128X25519AES128GCMSHA256Ed25519],
            extensions: [.lastResort, .marmotGroupData], proposals: [.selfRemove], credentials: [.basic])
        return grease ? base.addingGrease(using: &generator) : base
    }

    /// A copy with one random GREASE value appended to the cipher suite, extension, proposal and
    /// credential lists (RFC 9420 §13.5 names exactly these), skipping a list that already has one.
    public func addingGrease<G: RandomNumberGenerator>(using generator: inout G) -> Capabilities {
        var copy = self
        if !copy.cipherSuites.contains(where: \.isGrease) {
            copy.cipherSuites.append(CipherSuite(rawValue: Grease.random(using: &generator)))
        }
        if !copy.extensions.contains(where: \.isGrease) {
            copy.extensions.append(ExtensionType(rawValue: Grease.random(using: &generator)))
        }
        if !copy.proposals.contains(where: \.isGrease) {
            copy.proposals.append(ProposalType(rawValue: Grease.random(using: &generator)))
        }
        if !copy.credentials.contains(where: \.isGrease) {
            copy.credentials.append(CredentialType(rawValue: Grease.random(using: &generator)))
        }
        return copy
    }

    /// `addingGrease(using:)` with the system generator.
    public func addingGrease() -> Capabilities {
        var generator = SystemRandomNumberGenerator()
        return addingGrease(using: &generator)
    }
}
