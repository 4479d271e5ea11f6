import Foundation
import Nostr

/// A user's published relay lists: NIP-65 kind 10002 (read/write relays), NIP-17 kind 10050
/// (gift-wrap inbox relays, where Welcomes go) and MIP-00 kind 10051 (key package relays).
public struct RelayLists: Sendable, Hashable {
    /// Relays the user reads from (10002 `r` tags without marker or marked `read`).
    public var read: [RelayURL] = []
    /// Relays the user writes to (10002 `r` tags without marker or marked `write`).
    public var write: [RelayURL] = []
    /// Where gift wraps to the user go (10050 `relay` tags).
    public var inbox: [RelayURL] = []
    /// Where the user's key packages are (10051 `relay` tags).
    public var keyPackages: [RelayURL] = []

    public init(read: [RelayURL] = [], write: [RelayURL] = [], inbox: [RelayURL] = [], keyPackages: [RelayURL] = []) {
        self.read = read
        self.write = write
        self.inbox = inbox
        self.keyPackages = keyPackages
    }

    /// The lists in the newest of each kind among `events` by `author`; malformed URLs are skipped.
    public init(events: [Event], author: PublicKey) {
        func newest(_ kind: Kind) -> Event? {
            events.filter { $0.pubkey == author && $0.kind == kind }.max { ($0.createdAt, $1.id.hex) < ($1.createdAt, $0.id.hex) }
        }
        if let list = newest(.relayList) {
            for tag in list.tags where tag.name == "r" {
                guard let value = tag.value, let url = try? RelayURL(value) else { continue }
                let marker = tag.fields.count > 2 ? tag.fields[2] : nil
                if marker == nil || marker == "read" { read.append(url) }
                if marker == nil || marker == "write" { write.append(url) }
            }
        }
        inbox = newest(.dmRelays).map(Self.relayTags) ?? []
        keyPackages = newest(.keyPackageRelays).map(Self.relayTags) ?? []
    }

    private static func relayTags(_ event: Event) -> [RelayURL] {
        event.tags.filter { $0.name == "relay" }.compactMap { $0.value.flatMap { try? RelayURL($0) } }
    }

    /// Where to look for the user's key packages: the 10051 relays (MIP-00, v1) and the 10002 write
    /// relays (where v2 clients such as White Noise publish them; they no longer use 10051).
    public var keyPackageLookup: [RelayURL] {
        var out = keyPackages
        for relay in write where !out.contains(relay) { out.append(relay) }
        return out
    }
    /// Every relay of the NIP-65 list (read, then write-only), in tag order: where the user is
    /// connected, so where a group it is invited to can reach it.
    public var allListed: [RelayURL] { read + write.filter { !read.contains($0) } }
    /// Where to deliver a Welcome: the 10050 inbox relays, else the 10002 read relays.
    public var welcomeDelivery: [RelayURL] { inbox.isEmpty ? read : inbox }

    /// The three unsigned list events announcing `relays` for every purpose.
    public static func announcements(of relays: [RelayURL], author: PublicKey, createdAt: Int64) -> [UnsignedEvent] {
        [
            UnsignedEvent(pubkey: author, createdAt: createdAt, kind: .relayList,
                          tags: relays.map { Tag(["r", $0.string]) }, content: ""),
            UnsignedEvent(pubkey: author, createdAt: createdAt, kind: .dmRelays,
                          tags: relays.map { Tag(["relay", $0.string]) }, content: ""),
            UnsignedEvent(pubkey: author, createdAt: createdAt, kind: .keyPackageRelays,
                          tags: relays.map { Tag(["relay", $0.string]) }, content: ""),
        ]
    }
}
