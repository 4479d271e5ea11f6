import Foundation
import MLS
import Nostr
@testable import MarmotWire

/// Builds signed KeyPackages shaped like MDK's for tests, with hooks to break them.
enum TestKeyPackages {
    struct Made {
        var keyPackage: KeyPackage
        let signatureKey: SignaturePrivateKey
        let initKey: HPKEPrivateKey
    }

    static let provider = CipherSuiteProvider.mls128X25519

    /// A valid last-resort KeyPackage for `identity`, valid from now-3600 for 84 days.
    /// `editLeaf` runs before the leaf is signed, `editPackage` before the package is signed.
    static func make(
        identity: PublicKey, now: Int64, editLeaf: (inout LeafNode) -> Void = { _ in },
        editPackage: (inout KeyPackage) -> Void = { _ in }
    ) throws -> Made {
        let signatureKey = SignaturePrivateKey.generate()
        let initKey = HPKEPrivateKey.generate()
        var leaf = LeafNode(
            encryptionKey: HPKEPrivateKey.generate().publicKey, signatureKey: signatureKey.publicKey,
            credential: .basic(identity: Data(identity.bytes)), capabilities: MarmotGroupExtensions.leafCapabilities(),
            source: .keyPackage(lifetime: Lifetime(notBefore: UInt64(now - 3600), notAfter: UInt64(now + 7_257_600))),
            extensions: [], signature: Data())
        editLeaf(&leaf)
        leaf.signature = try provider.signWithLabel(
            signatureKey, label: "LeafNodeTBS", content: try LeafNodeTBS(leafNode: leaf).tlsSerialized)
        var keyPackage = KeyPackage(
            cipherSuite: .mls128X25519AES128GCMSHA256Ed25519, initKey: initKey.publicKey, leafNode: leaf,
            extensions: [Extension(LastResortExtension())], signature: Data())
        editPackage(&keyPackage)
        keyPackage.signature = try provider.signWithLabel(
            signatureKey, label: "KeyPackageTBS", content: keyPackage.tbs.tlsSerialized)
        return Made(keyPackage: keyPackage, signatureKey: signatureKey, initKey: initKey)
    }

    /// A signed event of `kind` carrying `keyPackage` with correct tags, optionally edited.
    static func event(
        _ keyPackage: KeyPackage, keys: Keys, kind: Kind = .addressableKeyPackage, now: Int64,
        editTags: (inout [Tag]) -> Void = { _ in }, content: String? = nil
    ) throws -> Event {
        let encoded = keyPackage.tlsSerialized
        let ref = provider.keyPackageRef(encodedKeyPackage: encoded)
        var tags = KeyPackageEvent.tags(
            ref: ref, relays: [try RelayURL("wss://relay.example.com")],
            dTag: kind == .addressableKeyPackage ? .random() : nil)
        editTags(&tags)
        return try UnsignedEvent(pubkey: keys.publicKey, createdAt: now, kind: kind, tags: tags,
                                 content: content ?? Base64.encode(encoded)).signed(with: keys)
    }
}
