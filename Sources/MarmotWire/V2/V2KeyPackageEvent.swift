import Foundation
import MLS
import Nostr

/// The Marmot v2 KeyPackage event: kind 30443 only, content base64 of an MLSMessage carrying the
/// KeyPackage, and seven tags in MDK's order (transports/nostr.md; MDK 0.9.14
/// `transport-nostr-adapter/src/key_package.rs` builds, `marmot-app/src/key_package_records.rs` checks).
public enum V2KeyPackageEvent {
    /// Lifetime span MDK accepts: 84 days + 1 h (OpenMLS `has_acceptable_range`).
    public static let maxLifetimeSpan: UInt64 = 7_261_200
    /// The tag names in the order they are written.
    public static let tagOrder = ["d", "mls_protocol_version", "i", "mls_ciphersuite", "mls_extensions", "mls_proposals", "app_components"]
    /// The tags MDK refuses to see twice (`reject_duplicate_key_package_tag`, `key_package_records.rs`
    /// 493-510); of `d` and `i` it reads the first.
    static let singleTags: Set<String> = ["mls_protocol_version", "mls_ciphersuite", "mls_extensions", "mls_proposals", "app_components"]

    /// What a valid event yields.
    public struct Parsed: Sendable, Hashable {
        public let keyPackage: KeyPackage
        public let ref: KeyPackageRef
        public let slot: String
        public let author: PublicKey
        public let isLastResort: Bool
    }

    static func hex16(_ value: UInt16) -> String { String(format: "0x%04x", value) }

    /// The id lists the tags must equal, from the KeyPackage: extensions without GREASE, proposals
    /// with GREASE, private-use leaf components (MDK `key_package_metadata`), each ascending.
    public static func advertised(_ keyPackage: KeyPackage) -> (extensions: [String], proposals: [String], components: [String]) {
        let caps = keyPackage.leafNode.capabilities
        let extensions = Set(caps.extensions.filter { !$0.isGrease }.map(\.rawValue)).sorted().map(hex16)
        let proposals = Set(caps.proposals.map(\.rawValue)).sorted().map(hex16)
        let components = leafComponents(keyPackage.leafNode).filter { $0 >= MarmotComponentID.privateUseStart }.map(hex16)
        return (extensions, proposals, components)
    }

    /// The 0x0001 list of a leaf (empty when absent or malformed).
    package static func leafComponents(_ leaf: LeafNode) -> [UInt16] {
        guard let dictionary = try? leaf.extensions.payload(AppDataDictionary.self),
              let raw = dictionary[MarmotComponentID.appComponents],
              let list = try? ComponentsList(bytes: Array(raw))
        else { return [] }
        return list.ids
    }

    /// The tags, in MDK's order.
    public static func tags(keyPackage: KeyPackage, slot: KeyPackageDTag) -> [Tag] {
        let ref = CipherSuiteProvider.mls128X25519.keyPackageRef(encodedKeyPackage: keyPackage.tlsSerialized)
        let lists = advertised(keyPackage)
        return [
            Tag(["d", slot.value]),
            Tag(["mls_protocol_version", "1.0"]),
            Tag(["i", Hex.encode(ref.bytes)]),
            Tag(["mls_ciphersuite", hex16(keyPackage.cipherSuite.rawValue)]),
            Tag(["mls_extensions"] + lists.extensions),
            Tag(["mls_proposals"] + lists.proposals),
            Tag(["app_components"] + lists.components),
        ]
    }

    /// Builds and signs the kind-30443 event; the credential must be `keys`' public key and the leaf
    /// must carry a valid 0x8009 proof.
    public static func build(
        keyPackage: KeyPackage, keys: Keys, slot: KeyPackageDTag = .random(), createdAt: Int64 = UnsignedEvent.now()
    ) throws(V2KeyPackageEventError) -> Event {
        guard case .basic(let identity) = keyPackage.leafNode.credential, identity == Data(keys.publicKey.bytes) else {
            throw .authorMismatch
        }
        do { try AccountIdentityProof.verify(leaf: keyPackage.leafNode) } catch { throw .proof(error) }
        let lists = advertised(keyPackage)
        guard !lists.extensions.isEmpty, !lists.proposals.isEmpty, !lists.components.isEmpty else { throw .emptyIDList }
        let content = Base64.encode(MLSMessage(.keyPackage(keyPackage)).tlsSerialized)
        do {
            return try UnsignedEvent(
                pubkey: keys.publicKey, createdAt: createdAt, kind: .addressableKeyPackage,
                tags: tags(keyPackage: keyPackage, slot: slot), content: content
            ).signed(with: keys)
        } catch {
            throw .signing
        }
    }

    /// Parses and validates a received event (signature, kind, tags, KeyPackage, proof).
    public static func parse(_ event: Event, now: Int64) throws(V2KeyPackageEventError) -> Parsed {
        guard event.kind == .addressableKeyPackage else { throw .wrongKind(event.kind.rawValue) }
        guard event.isValid else { throw .badEventSignature }
        // Tags MDK does not read (`relays`, `client`, …) are ignored, as MDK ignores them.
        var seen: [String: Tag] = [:]
        for tag in event.tags {
            guard let name = tag.name else { continue }
            guard seen[name] == nil else {
                if singleTags.contains(name) { throw .duplicateTag(name) }
                continue
            }
            seen[name] = tag
        }
        func single(_ name: String) throws(V2KeyPackageEventError) -> String {
            guard let tag = seen[name] else { throw .missingTag(name) }
            guard let value = tag.value, !value.isEmpty else { throw .invalidTag(name) }
            return value
        }
        let slot = try single("d")
        guard try single("mls_protocol_version") == "1.0" else { throw .invalidTag("mls_protocol_version") }
        let refHex = try single("i")
        let suite = try single("mls_ciphersuite")

        guard let raw = Base64.decode(event.content), !raw.isEmpty else { throw .contentNotBase64 }
        let keyPackage: KeyPackage
        do {
            let message = try MLSMessage(tlsSerialized: raw)
            guard case .keyPackage(let body) = message.body else { throw V2KeyPackageEventError.notKeyPackageMessage }
            keyPackage = body
        } catch let error as V2KeyPackageEventError {
            throw error
        } catch {
            throw .notKeyPackageMessage
        }
        do { try KeyPackageValidation.validate(keyPackage, now: now) } catch { throw .invalidKeyPackage(error.description) }
        if case .keyPackage(let lifetime) = keyPackage.leafNode.source,
           lifetime.notAfter < lifetime.notBefore || lifetime.notAfter - lifetime.notBefore > maxLifetimeSpan {
            throw .lifetimeTooLong
        }
        do { try AccountIdentityProof.verify(leaf: keyPackage.leafNode) } catch { throw .proof(error) }
        guard suite == hex16(keyPackage.cipherSuite.rawValue) else { throw .invalidTag("mls_ciphersuite") }
        let lists = advertised(keyPackage)
        try exactMatch(seen["mls_extensions"], "mls_extensions", lists.extensions)
        try exactMatch(seen["mls_proposals"], "mls_proposals", lists.proposals)
        try exactMatch(seen["app_components"], "app_components", lists.components)
        guard case .basic(let identity) = keyPackage.leafNode.credential, identity == Data(event.pubkey.bytes) else {
            throw .authorMismatch
        }
        let ref = CipherSuiteProvider.mls128X25519.keyPackageRef(encodedKeyPackage: keyPackage.tlsSerialized)
        guard refHex == Hex.encode(ref.bytes) else { throw .refMismatch }
        return Parsed(
            keyPackage: keyPackage, ref: ref, slot: slot, author: event.pubkey,
            isLastResort: LastResortComponent.isMarked(keyPackage.extensions))
    }

    /// A list tag equals the advertised ids as a set, with no value repeated (MDK
    /// `require_multi_value_key_package_tag_matches`).
    static func exactMatch(_ tag: Tag?, _ name: String, _ expected: [String]) throws(V2KeyPackageEventError) {
        guard let tag else { throw .missingTag(name) }
        let values = Array(tag.fields.dropFirst())
        guard Set(values).count == values.count, Set(values) == Set(expected) else { throw .listMismatch(name) }
    }
}

/// Why a v2 KeyPackage event is refused or cannot be built.
public enum V2KeyPackageEventError: Error, Sendable, Equatable, CustomStringConvertible {
    case wrongKind(UInt16)
    case badEventSignature
    case missingTag(String)
    case duplicateTag(String)
    case invalidTag(String)
    case listMismatch(String)
    case contentNotBase64
    case notKeyPackageMessage
    case invalidKeyPackage(String)
    case lifetimeTooLong
    case authorMismatch
    case refMismatch
    case proof(V2ProofError)
    case emptyIDList
    case signing

    public var description: String {
        switch self {
        case .wrongKind(let k): "v2 KeyPackage event has kind \(k), not 30443"
        case .badEventSignature: "v2 KeyPackage event signature does not verify"
        case .missingTag(let n): "v2 KeyPackage event lacks the \(n) tag"
        case .duplicateTag(let n): "v2 KeyPackage event repeats the \(n) tag"
        case .invalidTag(let n): "v2 KeyPackage event has an invalid \(n) tag"
        case .listMismatch(let n): "\(n) tag does not exactly match the KeyPackage"
        case .contentNotBase64: "v2 KeyPackage content is not base64"
        case .notKeyPackageMessage: "v2 KeyPackage content is not an MLSMessage carrying a KeyPackage"
        case .invalidKeyPackage(let why): why
        case .lifetimeTooLong: "KeyPackage lifetime spans more than 84 days + 1 h"
        case .authorMismatch: "event author differs from the credential identity"
        case .refMismatch: "i tag differs from the KeyPackageRef"
        case .proof(let e): "account identity proof: \(e)"
        case .emptyIDList: "a KeyPackage id-list tag would be empty"
        case .signing: "signing the event failed"
        }
    }
}

extension PeerKeyPackage {
    /// A peer's v2 key package from its kind-30443 event, with every check of `V2KeyPackageEvent.parse`.
    public init(v2Event event: Event, now: Int64) throws(V2KeyPackageEventError) {
        let parsed = try V2KeyPackageEvent.parse(event, now: now)
        self.init(
            eventID: event.id, author: parsed.author, kind: event.kind, createdAt: event.createdAt,
            dTag: try? KeyPackageDTag(parsed.slot), keyPackage: parsed.keyPackage, ref: parsed.ref, version: .v2)
    }
}
