import Foundation
import MLS
import Nostr

/// The NostrGroupData GroupContext extension (0xF2EE), version 2, exactly as MDK 0.8.0 reads and
/// writes it (MIP-01; marmot-wire §3.2).
///
/// Every `<V>` field uses the MLS variable-length header. The decoder is strict: trailing bytes, an
/// optional field of the wrong non-zero length, invalid UTF-8, an admin list whose length is not a
/// multiple of 32 and a relay that is not a ws/wss URL are errors; version 0 is rejected and versions
/// above 2 are read with the version 2 layout. The encoder writes admins sorted by raw bytes and relays
/// sorted by text, each without duplicates, as MDK's ordered sets do.
public struct NostrGroupData: Sendable, Hashable, ExtensionPayload, CustomStringConvertible {
    public static let extensionType = ExtensionType.marmotGroupData
    /// The version this implementation writes.
    public static let currentVersion: UInt16 = 2

    public static let imageHashLength = 32
    public static let imageKeyLength = 32
    public static let imageNonceLength = 12
    public static let imageUploadKeyLength = 32

    /// The version read from the wire (kept on re-encoding, as MDK does).
    public var version: UInt16
    public var nostrGroupID: NostrGroupID
    public var name: String
    /// The group's description text.
    public var groupDescription: String
    public var admins: [PublicKey]
    public var relays: [RelayURL]
    /// SHA-256 of the encrypted group image (its Blossom id), or nil.
    public var imageHash: Data?
    /// The 32-byte image seed (v2) from which the image key is derived; secret.
    public var imageKey: Data?
    /// The 12-byte image AEAD nonce.
    public var imageNonce: Data?
    /// The 32-byte Blossom upload seed (v2); secret.
    public var imageUploadKey: Data?

    /// A version 2 value; admins and relays are sorted and de-duplicated.
    public init(
        nostrGroupID: NostrGroupID, name: String, description: String, admins: [PublicKey], relays: [RelayURL],
        imageHash: Data? = nil, imageKey: Data? = nil, imageNonce: Data? = nil, imageUploadKey: Data? = nil,
        version: UInt16 = NostrGroupData.currentVersion
    ) {
        self.version = version
        self.nostrGroupID = nostrGroupID
        self.name = name
        self.groupDescription = description
        self.admins = Self.canonical(admins)
        self.relays = Self.canonical(relays)
        self.imageHash = imageHash
        self.imageKey = imageKey
        self.imageNonce = imageNonce
        self.imageUploadKey = imageUploadKey
    }

    /// Whether `key` is listed as an admin.
    public func isAdmin(_ key: PublicKey) -> Bool { admins.contains(key) }

    /// A printable summary without the image secrets.
    public var description: String {
        "NostrGroupData(v\(version), h: \(nostrGroupID.hex), name: \(name.count) chars, admins: \(admins.count), "
            + "relays: \(relays.map(\.string)), image: \(imageHash != nil))"
    }

    static func canonical(_ admins: [PublicKey]) -> [PublicKey] { Array(Set(admins)).sorted() }
    static func canonical(_ relays: [RelayURL]) -> [RelayURL] { Array(Set(relays)).sorted() }

    // MARK: Wire

    public func encode(to writer: inout TLSWriter) {
        writer.write(version)
        writer.writeFixed(nostrGroupID.bytes)
        writer.writeOpaque(Data(name.utf8))
        writer.writeOpaque(Data(groupDescription.utf8))
        writer.writeVector { w in
            for admin in Self.canonical(admins) { w.writeFixed(admin.bytes) }
        }
        writer.writeVector { w in
            for relay in Self.canonical(relays) { w.writeOpaque(Data(relay.string.utf8)) }
        }
        writer.writeOpaque(imageHash ?? Data())
        writer.writeOpaque(imageKey ?? Data())
        writer.writeOpaque(imageNonce ?? Data())
        writer.writeOpaque(imageUploadKey ?? Data())
    }

    public init(from reader: inout TLSReader) throws {
        version = try reader.readUInt16()
        guard version != 0 else { throw NostrGroupDataError.unsupportedVersion(version) }
        if version > Self.currentVersion {
            MarmotLog.groupData.warning("NostrGroupData version \(version) read with the version 2 layout")
        }
        nostrGroupID = NostrGroupID(uncheckedBytes: Array(try reader.readFixed(NostrGroupID.byteCount)))
        name = try Self.utf8(try reader.readOpaque(), field: "name")
        groupDescription = try Self.utf8(try reader.readOpaque(), field: "description")

        let adminBytes = try reader.readOpaque()
        guard adminBytes.count % 32 == 0 else { throw NostrGroupDataError.invalidAdminList(byteCount: adminBytes.count) }
        var admins: [PublicKey] = []
        for offset in stride(from: 0, to: adminBytes.count, by: 32) {
            let raw = adminBytes[adminBytes.startIndex + offset ..< adminBytes.startIndex + offset + 32]
            do { admins.append(try PublicKey(bytes: raw)) } catch { throw NostrGroupDataError.invalidAdminKey(index: offset / 32) }
        }
        self.admins = Self.canonical(admins)

        let relayStrings = try reader.readVectorElements { try $0.readOpaque() }
        var relays: [RelayURL] = []
        for raw in relayStrings {
            let text = try Self.utf8(raw, field: "relay")
            do { relays.append(try RelayURL(text)) } catch { throw NostrGroupDataError.invalidRelay(error) }
        }
        self.relays = Self.canonical(relays)

        imageHash = try Self.optional(try reader.readOpaque(), length: Self.imageHashLength, field: "image_hash")
        imageKey = try Self.optional(try reader.readOpaque(), length: Self.imageKeyLength, field: "image_key")
        imageNonce = try Self.optional(try reader.readOpaque(), length: Self.imageNonceLength, field: "image_nonce")
        imageUploadKey = try Self.optional(
            try reader.readOpaque(), length: Self.imageUploadKeyLength, field: "image_upload_key")
    }

    /// Decodes extension_data that must be consumed exactly (trailing bytes are an error, §3.2).
    public init(extensionData data: Data) throws {
        self = try NostrGroupData(tlsSerialized: data)
    }

    /// Reads the 0xF2EE extension from a GroupContext's extensions; `.missing` when absent.
    public init(groupContextExtensions extensions: [Extension]) throws {
        guard let payload = try extensions.payload(NostrGroupData.self) else { throw NostrGroupDataError.missing }
        self = payload
    }

    private static func utf8(_ data: Data, field: String) throws -> String {
        guard let text = UTF8Text.decode(data) else { throw NostrGroupDataError.invalidUTF8(field: field) }
        return text
    }

    private static func optional(_ data: Data, length: Int, field: String) throws -> Data? {
        if data.isEmpty { return nil }
        guard data.count == length else {
            throw NostrGroupDataError.invalidLength(field: field, expected: length, actual: data.count)
        }
        return Data(data)
    }
}

/// Why 0xF2EE extension data was rejected (marmot-wire §3.2).
public enum NostrGroupDataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Version 0.
    case unsupportedVersion(UInt16)
    /// name, description or a relay is not valid UTF-8.
    case invalidUTF8(field: String)
    /// admin_pubkeys is not a whole number of 32-byte keys.
    case invalidAdminList(byteCount: Int)
    /// An admin key is not an x-only secp256k1 point.
    case invalidAdminKey(index: Int)
    /// A relay is not a ws/wss URL.
    case invalidRelay(RelayURLError)
    /// An optional image field is neither empty nor its exact length.
    case invalidLength(field: String, expected: Int, actual: Int)
    /// The GroupContext has no 0xF2EE extension.
    case missing

    public var description: String {
        switch self {
        case .unsupportedVersion(let v): "NostrGroupData: unsupported version \(v)"
        case .invalidUTF8(let f): "NostrGroupData: \(f) is not valid UTF-8"
        case .invalidAdminList(let n): "NostrGroupData: admin_pubkeys has \(n) bytes, not a multiple of 32"
        case .invalidAdminKey(let i): "NostrGroupData: admin \(i) is not a valid x-only public key"
        case .invalidRelay(let e): "NostrGroupData: \(e)"
        case .invalidLength(let f, let e, let a): "NostrGroupData: \(f) must be empty or \(e) bytes, got \(a)"
        case .missing: "NostrGroupData: the group has no 0xF2EE extension"
        }
    }
}
