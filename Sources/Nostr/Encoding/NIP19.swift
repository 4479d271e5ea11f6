/// Errors from decoding NIP-19 bech32 entities.
public enum NIP19Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bech32 layer failed (checksum, case, characters, padding).
    case bech32(Bech32Error)
    /// The human-readable prefix is not one NIP-19 defines.
    case unknownPrefix(String)
    /// A specific entity was expected but another prefix was found.
    case wrongPrefix(expected: String, actual: String)
    /// A bare entity did not carry exactly 32 bytes.
    case invalidLength(expected: Int, actual: Int)
    /// The TLV data is truncated or a value has the wrong size or encoding.
    case malformedTLV(String)
    /// A required TLV entry is absent.
    case missingTLV(type: UInt8)
    /// A key inside the entity is not valid on secp256k1.
    case invalidKey

    public var description: String {
        switch self {
        case .bech32(let e): "nip19: \(e)"
        case .unknownPrefix(let p): "nip19: unknown prefix \(p.debugDescription)"
        case .wrongPrefix(let e, let a): "nip19: expected \(e), got \(a)"
        case .invalidLength(let e, let a): "nip19: expected \(e) bytes, got \(a)"
        case .malformedTLV(let why): "nip19: malformed TLV: \(why)"
        case .missingTLV(let t): "nip19: missing TLV type \(t)"
        case .invalidKey: "nip19: invalid key"
        }
    }
}

/// NIP-19 bech32-encoded entities: bare keys and ids, and TLV pointers with relay hints.
public enum NIP19 {
    /// The human-readable prefixes NIP-19 defines.
    public enum Prefix: String, Sendable, CaseIterable {
        case npub, nsec, note, nprofile, nevent, naddr
    }

    /// A profile pointer (`nprofile`): a public key with relay hints.
    public struct ProfilePointer: Sendable, Hashable {
        public var publicKey: PublicKey
        public var relays: [String]
        public init(publicKey: PublicKey, relays: [String] = []) {
            self.publicKey = publicKey
            self.relays = relays
        }
    }

    /// An event pointer (`nevent`): an event id with optional relays, author and kind.
    public struct EventPointer: Sendable, Hashable {
        public var id: EventID
        public var relays: [String]
        public var author: PublicKey?
        public var kind: Kind?
        public init(id: EventID, relays: [String] = [], author: PublicKey? = nil, kind: Kind? = nil) {
            self.id = id
            self.relays = relays
            self.author = author
            self.kind = kind
        }
    }

    /// An addressable-event pointer (`naddr`): identifier (`d` tag), author and kind, plus relays.
    public struct AddressPointer: Sendable, Hashable {
        public var identifier: String
        public var author: PublicKey
        public var kind: Kind
        public var relays: [String]
        public init(identifier: String, author: PublicKey, kind: Kind, relays: [String] = []) {
            self.identifier = identifier
            self.author = author
            self.kind = kind
            self.relays = relays
        }
    }

    /// Any decoded NIP-19 entity.
    public enum Entity: Sendable, Equatable {
        case npub(PublicKey)
        case nsec(SecretKey)
        case note(EventID)
        case nprofile(ProfilePointer)
        case nevent(EventPointer)
        case naddr(AddressPointer)
    }

    private enum TLVType {
        static let special: UInt8 = 0
        static let relay: UInt8 = 1
        static let author: UInt8 = 2
        static let kind: UInt8 = 3
    }

    // MARK: Bare entities

    /// Encodes 32 bytes under a bare prefix (npub, nsec, note).
    static func encodeBare(_ prefix: Prefix, _ bytes: [UInt8]) -> String {
        Bech32.encode(hrp: prefix.rawValue, data: bytes)
    }

    /// Decodes a bare entity and checks its prefix and 32-byte length.
    static func decodeBare(_ text: String, expecting prefix: Prefix) throws -> [UInt8] {
        let (hrp, data) = try bech32(text)
        guard hrp == prefix.rawValue else { throw NIP19Error.wrongPrefix(expected: prefix.rawValue, actual: hrp) }
        guard data.count == 32 else { throw NIP19Error.invalidLength(expected: 32, actual: data.count) }
        return data
    }

    private static func bech32(_ text: String) throws -> (String, [UInt8]) {
        do { return try Bech32.decode(text) } catch let e as Bech32Error { throw NIP19Error.bech32(e) }
    }

    // MARK: Decoding any entity

    /// Decodes any NIP-19 entity; unknown TLV types are ignored, as NIP-19 asks.
    public static func decode(_ text: String) throws -> Entity {
        let (hrp, data) = try bech32(text)
        guard let prefix = Prefix(rawValue: hrp) else { throw NIP19Error.unknownPrefix(hrp) }
        switch prefix {
        case .npub, .nsec, .note:
            guard data.count == 32 else { throw NIP19Error.invalidLength(expected: 32, actual: data.count) }
            switch prefix {
            case .npub: return .npub(try key(data))
            case .nsec:
                guard let sk = try? SecretKey(bytes: data) else { throw NIP19Error.invalidKey }
                return .nsec(sk)
            default: return .note(EventID(uncheckedBytes: data))
            }
        case .nprofile:
            let tlv = try parseTLV(data)
            guard let special = tlv.first(where: { $0.type == TLVType.special }) else { throw NIP19Error.missingTLV(type: 0) }
            guard special.value.count == 32 else { throw NIP19Error.malformedTLV("nprofile pubkey must be 32 bytes") }
            return .nprofile(ProfilePointer(publicKey: try key(special.value), relays: try relays(tlv)))
        case .nevent:
            let tlv = try parseTLV(data)
            guard let special = tlv.first(where: { $0.type == TLVType.special }) else { throw NIP19Error.missingTLV(type: 0) }
            guard special.value.count == 32 else { throw NIP19Error.malformedTLV("nevent id must be 32 bytes") }
            return .nevent(EventPointer(
                id: EventID(uncheckedBytes: special.value), relays: try relays(tlv),
                author: try author(tlv), kind: try kind(tlv)))
        case .naddr:
            let tlv = try parseTLV(data)
            guard let special = tlv.first(where: { $0.type == TLVType.special }) else { throw NIP19Error.missingTLV(type: 0) }
            guard let identifier = utf8(special.value) else { throw NIP19Error.malformedTLV("naddr identifier is not UTF-8") }
            guard let author = try author(tlv) else { throw NIP19Error.missingTLV(type: TLVType.author) }
            guard let kind = try kind(tlv) else { throw NIP19Error.missingTLV(type: TLVType.kind) }
            return .naddr(AddressPointer(identifier: identifier, author: author, kind: kind, relays: try relays(tlv)))
        }
    }

    private static func key(_ bytes: [UInt8]) throws -> PublicKey {
        guard let pk = try? PublicKey(bytes: bytes) else { throw NIP19Error.invalidKey }
        return pk
    }

    private static func utf8(_ bytes: [UInt8]) -> String? { UTF8Validation.string(bytes) }

    private static func relays(_ tlv: [(type: UInt8, value: [UInt8])]) throws -> [String] {
        try tlv.filter { $0.type == TLVType.relay }.map {
            guard let s = utf8($0.value) else { throw NIP19Error.malformedTLV("relay is not UTF-8") }
            return s
        }
    }

    private static func author(_ tlv: [(type: UInt8, value: [UInt8])]) throws -> PublicKey? {
        guard let entry = tlv.first(where: { $0.type == TLVType.author }) else { return nil }
        guard entry.value.count == 32 else { throw NIP19Error.malformedTLV("author must be 32 bytes") }
        return try key(entry.value)
    }

    private static func kind(_ tlv: [(type: UInt8, value: [UInt8])]) throws -> Kind? {
        guard let entry = tlv.first(where: { $0.type == TLVType.kind }) else { return nil }
        guard entry.value.count == 4 else { throw NIP19Error.malformedTLV("kind must be 4 bytes") }
        let value = entry.value.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard let k = UInt16(exactly: value) else { throw NIP19Error.malformedTLV("kind \(value) out of range") }
        return Kind(rawValue: k)
    }

    /// Splits `type ‖ length ‖ value` records.
    static func parseTLV(_ data: [UInt8]) throws -> [(type: UInt8, value: [UInt8])] {
        var out = [(type: UInt8, value: [UInt8])]()
        var i = 0
        while i < data.count {
            guard i + 2 <= data.count else { throw NIP19Error.malformedTLV("truncated header") }
            let type = data[i], length = Int(data[i + 1])
            i += 2
            guard i + length <= data.count else { throw NIP19Error.malformedTLV("value overruns data") }
            out.append((type, Array(data[i..<(i + length)])))
            i += length
        }
        return out
    }

    // MARK: Encoding TLV entities

    private static func appendTLV(_ out: inout [UInt8], _ type: UInt8, _ value: [UInt8]) {
        // One byte of length: longer values (absurd relay URLs) are truncated to keep the entity valid.
        let v = value.prefix(255)
        out.append(type)
        out.append(UInt8(v.count))
        out.append(contentsOf: v)
    }

    /// Encodes an `nprofile1…`.
    public static func encode(_ pointer: ProfilePointer) -> String {
        var data = [UInt8]()
        appendTLV(&data, TLVType.special, pointer.publicKey.bytes)
        for r in pointer.relays { appendTLV(&data, TLVType.relay, Array(r.utf8)) }
        return Bech32.encode(hrp: Prefix.nprofile.rawValue, data: data)
    }

    /// Encodes an `nevent1…`.
    public static func encode(_ pointer: EventPointer) -> String {
        var data = [UInt8]()
        appendTLV(&data, TLVType.special, pointer.id.bytes)
        for r in pointer.relays { appendTLV(&data, TLVType.relay, Array(r.utf8)) }
        if let a = pointer.author { appendTLV(&data, TLVType.author, a.bytes) }
        if let k = pointer.kind { appendTLV(&data, TLVType.kind, kindBytes(k)) }
        return Bech32.encode(hrp: Prefix.nevent.rawValue, data: data)
    }

    /// Encodes an `naddr1…`.
    public static func encode(_ pointer: AddressPointer) -> String {
        var data = [UInt8]()
        appendTLV(&data, TLVType.special, Array(pointer.identifier.utf8))
        for r in pointer.relays { appendTLV(&data, TLVType.relay, Array(r.utf8)) }
        appendTLV(&data, TLVType.author, pointer.author.bytes)
        appendTLV(&data, TLVType.kind, kindBytes(pointer.kind))
        return Bech32.encode(hrp: Prefix.naddr.rawValue, data: data)
    }

    private static func kindBytes(_ kind: Kind) -> [UInt8] {
        let v = UInt32(kind.rawValue)
        return [UInt8(v >> 24 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)]
    }
}
