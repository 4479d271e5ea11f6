import Foundation
import MLS
import Nostr

/// Publishing our KeyPackages: the addressable kind-30443 event and its legacy kind-443 twin, which
/// MDK 0.8.0 asks callers to publish side by side until 2026-05-31 (MIP-00; marmot-wire §2.2–2.4).
public enum KeyPackageEvent {
    /// The `client` tag value this implementation writes (receivers do not check it).
    public static let defaultClient = "marmot-swift/0.1.0"

    /// Both signed events for one KeyPackage, with what to remember for rotation and cleanup.
    public struct Published: Sendable, Hashable {
        /// Kind 30443, with the `d` tag.
        public let addressable: Event
        /// Kind 443, the same tags without `d`.
        public let legacy: Event
        /// Reuse it for the next KeyPackage so relays replace this one.
        public let dTag: KeyPackageDTag
        /// The `i` tag value: where the matching private keys are stored.
        public let ref: KeyPackageRef
    }

    /// The tags in MDK's order: `d` (30443 only), `mls_protocol_version`, `mls_ciphersuite`,
    /// `mls_extensions`, `mls_proposals`, `relays`, `i`, `-` (only when `protected`), `client`
    /// (when given), `encoding`.
    public static func tags(
        ref: KeyPackageRef, relays: [RelayURL], dTag: KeyPackageDTag?, protected: Bool = false,
        client: String? = defaultClient
    ) -> [Tag] {
        var tags: [Tag] = []
        if let dTag { tags.append(Tag(["d", dTag.value])) }
        tags.append(Tag(["mls_protocol_version", "1.0"]))
        tags.append(Tag(["mls_ciphersuite", CipherSuite.mls128X25519AES128GCMSHA256Ed25519.description]))
        tags.append(Tag(["mls_extensions", ExtensionType.lastResort.description, ExtensionType.marmotGroupData.description]))
        tags.append(Tag(["mls_proposals", ProposalType.selfRemove.description]))
        tags.append(Tag(["relays"] + relays.map(\.string)))
        tags.append(Tag(["i", Hex.encode(ref.bytes)]))
        if protected { tags.append(Tag(["-"])) }
        if let client { tags.append(Tag(["client", client])) }
        tags.append(Tag(["encoding", "base64"]))
        return tags
    }

    /// Builds and signs both events; content is base64 of the bare TLS KeyPackage (not an MLSMessage).
    /// The KeyPackage's credential must be `keys`' public key.
    public static func build(
        keyPackage: KeyPackage, relays: [RelayURL], keys: Keys, dTag: KeyPackageDTag = .random(),
        protected: Bool = false, client: String? = defaultClient, createdAt: Int64 = UnsignedEvent.now()
    ) throws -> Published {
        guard !relays.isEmpty else { throw KeyPackageEventError.noRelays }
        let identity = try PeerKeyPackage.credentialIdentity(keyPackage)
        guard identity == Data(keys.publicKey.bytes) else {
            throw KeyPackageEventError.identityMismatch(credential: Hex.encode(identity), author: keys.publicKey)
        }
        let encoded = keyPackage.tlsSerialized
        let ref = CipherSuiteProvider.mls128X25519.keyPackageRef(encodedKeyPackage: encoded)
        let content = Base64.encode(encoded)
        let addressable = try UnsignedEvent(
            pubkey: keys.publicKey, createdAt: createdAt, kind: .addressableKeyPackage,
            tags: tags(ref: ref, relays: relays, dTag: dTag, protected: protected, client: client), content: content
        ).signed(with: keys)
        let legacy = try UnsignedEvent(
            pubkey: keys.publicKey, createdAt: createdAt, kind: .keyPackage,
            tags: tags(ref: ref, relays: relays, dTag: nil, protected: protected, client: client), content: content
        ).signed(with: keys)
        return Published(addressable: addressable, legacy: legacy, dTag: dTag, ref: ref)
    }
}
