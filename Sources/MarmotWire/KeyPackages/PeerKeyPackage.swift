import Foundation
import MLS
import Nostr

/// Another user's KeyPackage, read from a kind-30443 or legacy kind-443 event and checked with every
/// acceptance rule of MDK 0.8.0's `parse_key_package` (MIP-00; marmot-wire §2.5).
public struct PeerKeyPackage: Sendable, Hashable {
    /// The event's id (for the Welcome rumor's `e` tag).
    public let eventID: EventID
    /// The event author, equal to the credential identity.
    public let author: PublicKey
    public let kind: Kind
    public let createdAt: Int64
    /// The `d` tag of a kind-30443 event.
    public let dTag: KeyPackageDTag?
    public let keyPackage: KeyPackage
    /// The exact TLS bytes from the content.
    public let encodedKeyPackage: Data
    /// RFC 9420 KeyPackageRef of `encodedKeyPackage`; it names the Welcome entry for this invitee.
    public let ref: KeyPackageRef
    /// Where the author reads Welcomes and group traffic, in tag order (v2 events name none).
    public let relays: [RelayURL]
    /// The Marmot protocol of the key package: which groups it can join.
    public let version: MarmotVersion

    /// Whether the leaf advertises SelfRemove (0x000a), which decides the group's required proposals.
    public var supportsSelfRemove: Bool { keyPackage.leafNode.capabilities.proposals.contains(.selfRemove) }

    /// Parses a signed event; by default also checks its NIP-01 id and signature first, which MDK leaves
    /// to its relay SDK.
    public init(event: Event, now: Int64 = UnsignedEvent.now(), verifySignature: Bool = true) throws(KeyPackageEventError) {
        if verifySignature {
            do { try event.verify() } catch let error as EventError { throw .invalidEvent(error) } catch {
                throw .invalidEvent(.invalidSignature)
            }
        }
        try self.init(id: event.id, pubkey: event.pubkey, createdAt: event.createdAt, kind: event.kind,
                      tags: event.tags, content: event.content, now: now)
    }

    /// Parses an event without a signature (a fetched event whose signature was checked elsewhere, or a
    /// test vector); the id is computed from the fields.
    public init(unsignedEvent event: UnsignedEvent, now: Int64 = UnsignedEvent.now()) throws(KeyPackageEventError) {
        try self.init(id: event.id, pubkey: event.pubkey, createdAt: event.createdAt, kind: event.kind,
                      tags: event.tags, content: event.content, now: now)
    }

    private init(
        id: EventID, pubkey: PublicKey, createdAt: Int64, kind: Kind, tags: [Tag], content: String, now: Int64
    ) throws(KeyPackageEventError) {
        // Rule 1.
        guard kind == .addressableKeyPackage || kind == .keyPackage else { throw .wrongKind(kind) }
        let addressable = kind == .addressableKeyPackage

        // Rule 2.
        var dTag: KeyPackageDTag?
        if addressable {
            guard let d = tags.first(where: { $0.name == "d" }) else { throw .missingTag("d") }
            dTag = try KeyPackageDTag(d.value ?? "")
        }

        // Presence, in MDK's order, then the value rules 3–8.
        func first(_ name: String) -> Tag? { tags.first { $0.name == name } }
        guard let versionTag = first("mls_protocol_version") else { throw .missingTag("mls_protocol_version") }
        guard let suiteTag = first("mls_ciphersuite") else { throw .missingTag("mls_ciphersuite") }
        guard let extensionsTag = first("mls_extensions") else { throw .missingTag("mls_extensions") }
        let proposalsTag = first("mls_proposals")
        if addressable && proposalsTag == nil { throw .missingTag("mls_proposals") }
        if let proposalsTag, proposalsTag.fields.count != 2 || proposalsTag.fields[1] != "0x000a" {
            throw .invalidProposals(Array(proposalsTag.fields.dropFirst()))
        }
        guard let relaysTag = first("relays") else { throw .missingTag("relays") }
        let refTag = first("i")
        if addressable && refTag == nil { throw .missingTag("i") }

        let version = versionTag.value ?? ""
        guard version == "1.0" else { throw .unsupportedProtocolVersion(version) }
        let suite = suiteTag.value ?? ""
        guard Self.isCodePoint(suite) else { throw .malformedCipherSuite(suite) }
        guard suite.lowercased() == "0x0001" else { throw .unsupportedCipherSuite(suite) }
        let extensionValues = Array(extensionsTag.fields.dropFirst())
        guard !extensionValues.isEmpty else { throw .malformedExtensions("") }
        for value in extensionValues where !Self.isCodePoint(value) { throw .malformedExtensions(value) }
        let advertised = Set(extensionValues.map { $0.lowercased() })
        for required in [ExtensionType.lastResort, .marmotGroupData] where !advertised.contains(required.description) {
            throw .missingRequiredExtension(required)
        }
        let relayValues = Array(relaysTag.fields.dropFirst())
        guard !relayValues.isEmpty else { throw .invalidRelays("no relay URL") }
        var relays: [RelayURL] = []
        for value in relayValues {
            do { relays.append(try RelayURL(value)) } catch { throw .invalidRelays(error.description) }
        }
        var refFromTag: [UInt8]?
        if let refTag {
            guard refTag.fields.count == 2, let value = refTag.value, !value.isEmpty,
                  let bytes = Hex.decode(value, allowUppercase: true)
            else { throw .invalidRefTag(Array(refTag.fields.dropFirst())) }
            refFromTag = bytes
        }

        // Rule 9.
        guard tags.contains(where: { $0.name == "encoding" && $0.value?.lowercased() == "base64" }) else {
            throw .missingEncoding
        }

        // Rule 10.
        guard let encoded = Base64.decode(content) else { throw .invalidContent("not standard padded base64") }
        let keyPackage: KeyPackage
        do { keyPackage = try KeyPackage(tlsSerialized: encoded) } catch {
            throw .invalidContent("not a TLS KeyPackage: \(error)")
        }
        do { try KeyPackageValidation.validate(keyPackage, now: now) } catch { throw .invalidKeyPackage(error) }

        // Rule 11.
        let identity = try Self.credentialIdentity(keyPackage)
        guard identity == Data(pubkey.bytes) else {
            throw .identityMismatch(credential: Hex.encode(identity), author: pubkey)
        }

        // Rule 8, content part.
        let ref = CipherSuiteProvider.mls128X25519.keyPackageRef(encodedKeyPackage: encoded)
        if let refFromTag, Data(refFromTag) != ref.bytes {
            throw .refMismatch(tag: Hex.encode(refFromTag), computed: Hex.encode(ref.bytes))
        }

        self.eventID = id
        self.author = pubkey
        self.kind = kind
        self.createdAt = createdAt
        self.dTag = dTag
        self.keyPackage = keyPackage
        self.encodedKeyPackage = Data(encoded)
        self.ref = ref
        self.relays = relays
        self.version = .v1
    }

    /// A key package whose event was checked by the caller (the v2 parser).
    init(
        eventID: EventID, author: PublicKey, kind: Kind, createdAt: Int64, dTag: KeyPackageDTag?, keyPackage: KeyPackage,
        ref: KeyPackageRef, version: MarmotVersion
    ) {
        self.eventID = eventID
        self.author = author
        self.kind = kind
        self.createdAt = createdAt
        self.dTag = dTag
        self.keyPackage = keyPackage
        self.encodedKeyPackage = keyPackage.tlsSerialized
        self.ref = ref
        self.relays = []
        self.version = version
    }

    /// `0x` followed by exactly four hex digits of either case.
    static func isCodePoint(_ value: String) -> Bool {
        let utf8 = Array(value.utf8)
        guard utf8.count == 6, utf8[0] == UInt8(ascii: "0"), utf8[1] == UInt8(ascii: "x") else { return false }
        return utf8[2...].allSatisfy { c in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(c)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(c)
        }
    }

    /// The 32-byte identity of a basic credential (MIP-00: the raw x-only Nostr key).
    static func credentialIdentity(_ keyPackage: KeyPackage) throws(KeyPackageEventError) -> Data {
        guard case .basic(let identity) = keyPackage.leafNode.credential else {
            throw .invalidCredential("type \(keyPackage.leafNode.credential.type) is not basic")
        }
        guard identity.count == 32 else { throw .invalidCredential("identity is \(identity.count) bytes, not 32") }
        return identity
    }
}
