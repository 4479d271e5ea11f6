import Foundation
import MLS
import Nostr

/// What a group says about itself, whichever protocol carries it: its `h` value, name, description,
/// admins and relays (v1: NostrGroupData 0xF2EE, MIP-01; v2: components 0x8001, 0x8003, 0x8004).
public struct GroupMetadata: Sendable, Hashable {
    /// The `h` tag value of the group's kind-445 events.
    public var nostrGroupID: NostrGroupID
    public var name: String
    public var groupDescription: String
    /// Sorted and unique.
    public var admins: [PublicKey]
    /// Sorted and unique.
    public var relays: [RelayURL]
    /// The group was closed for good by an admin (v2 lifecycle 0x800c; v1 has no such state).
    public var disbanded: Bool
    /// How long messages live, in seconds; 0 keeps them (v2 component 0x8005; v1 has none).
    public var retention: UInt64
    /// The encrypted group picture (v1: NostrGroupData `image_*`; v2: component 0x8002), or nil.
    public var image: GroupImage?
    /// The group picture by https address (v2 component 0x8007, read only here; v1 has none).
    public var avatarURL: URL?

    public init(
        nostrGroupID: NostrGroupID, name: String, description: String, admins: [PublicKey], relays: [RelayURL],
        disbanded: Bool = false, retention: UInt64 = 0, image: GroupImage? = nil, avatarURL: URL? = nil
    ) {
        self.image = image
        self.avatarURL = avatarURL
        self.disbanded = disbanded
        self.retention = retention
        self.nostrGroupID = nostrGroupID
        self.name = name
        self.groupDescription = description
        self.admins = Array(Set(admins)).sorted()
        self.relays = Array(Set(relays)).sorted()
    }

    /// Whether `key` is listed as an admin.
    public func isAdmin(_ key: PublicKey) -> Bool { admins.contains(key) }
}
