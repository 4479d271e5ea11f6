import Foundation

/// Component 0x8004 `marmot.transport.nostr.routing.v1`: `nostr_group_id[32] ‖ varint(len) ‖
/// (varint(len) ‖ url)…` with 1–16 ws/wss URLs of ≤ 512 B, byte-sorted and unique
/// (app-components/nostr-routing-v1; MDK `routing.rs`). An AppDataUpdate of 0x8004 carries the same
/// bytes (full replacement). The kind-445 `h` tag is the hex of `nostrGroupID`.
public struct NostrRouting: Hashable, Sendable {
    public static let maxRelays = 16
    public static let maxRelayURLBytes = 512

    public let nostrGroupID: [UInt8]
    /// Exactly as on the wire: byte-sorted, unique.
    public let relays: [String]

    /// Builds routing from relays in any order; duplicates are merged, as MDK's constructor does.
    public init(nostrGroupID: [UInt8], relays: [String]) throws(V2ComponentError) {
        guard nostrGroupID.count == 32 else { throw .wrongLength("nostr_group_id", expected: 32, actual: nostrGroupID.count) }
        guard relays.count <= Self.maxRelays else { throw .tooManyRelays(relays.count) }
        for relay in relays { try Self.validate(relay) }
        var sorted = relays.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        sorted = sorted.enumerated().filter { $0.offset == 0 || sorted[$0.offset - 1] != $0.element }.map(\.element)
        guard !sorted.isEmpty else { throw .noRelays }
        self.nostrGroupID = nostrGroupID
        self.relays = sorted
    }

    /// The group id as the 64 lowercase hex characters of the kind-445 `h` tag.
    public var hTag: String { nostrGroupID.map { String(format: "%02x", $0) }.joined() }

    public var bytes: [UInt8] {
        var entries: [UInt8] = []
        for relay in relays { QUICVarint.encodeBytes(Array(relay.utf8), into: &entries) }
        var out = nostrGroupID
        QUICVarint.encodeBytes(entries, into: &out)
        return out
    }

    /// Decodes and validates; unsorted or repeated relays are rejected (never repaired).
    public init(bytes: [UInt8]) throws(V2ComponentError) {
        guard bytes.count >= 32 else { throw .truncated("nostr_group_id") }
        var cursor = bytes[32...]
        let vector = try QUICVarint.decodeBytes(
            &cursor, maxLength: Self.maxRelays * (Self.maxRelayURLBytes + 2), label: "relay vector")
        guard cursor.isEmpty else { throw .trailingBytes("nostr routing") }
        var entries = vector[...]
        var relays: [String] = []
        while !entries.isEmpty {
            guard relays.count < Self.maxRelays else { throw .tooManyRelays(relays.count + 1) }
            let raw = try QUICVarint.decodeBytes(&entries, maxLength: Self.maxRelayURLBytes, label: "relay URL")
            guard !raw.isEmpty else { throw .invalidRelayURL("empty") }
            guard let url = String(validating: raw, as: UTF8.self) else { throw .notUTF8("relay URL") }
            if let last = relays.last {
                if last == url { throw .duplicateRelay }
                guard Array(last.utf8).lexicographicallyPrecedes(raw) else { throw .unsortedRelays }
            }
            try Self.validate(url)
            relays.append(url)
        }
        guard !relays.isEmpty else { throw .noRelays }
        nostrGroupID = Array(bytes[0..<32])
        self.relays = relays
    }

    /// ws/wss with a host, no credentials, no fragment, ≤ 512 B (MDK `validate_nostr_relay_url`).
    static func validate(_ relay: String) throws(V2ComponentError) {
        guard !relay.isEmpty else { throw .invalidRelayURL("empty") }
        guard relay.utf8.count <= maxRelayURLBytes else { throw .tooLong("relay URL", max: maxRelayURLBytes) }
        do { _ = try RelayURL(relay) } catch { throw .invalidRelayURL(error.description) }
        guard let components = URLComponents(string: relay) else { throw .invalidRelayURL("unparsable") }
        guard components.user == nil, components.password == nil else { throw .invalidRelayURL("credentials") }
        guard components.fragment == nil else { throw .invalidRelayURL("fragment") }
    }
}
