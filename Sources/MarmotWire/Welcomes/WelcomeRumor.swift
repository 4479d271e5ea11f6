import Foundation
import MLS
import Nostr

/// The kind-444 Welcome rumor MDK 0.8.0 builds for each invitee, and its NIP-59 delivery
/// (MIP-02; marmot-wire §4.1, §4.2).
///
/// Tags, in order: `relays` (the group's relays), `e` (the invitee's KeyPackage event id), `client`
/// (optional), `encoding` = `base64`; content is base64 of the TLS `MLSMessage` holding the Welcome;
/// no signature: the seal signed by the author's identity key authenticates it.
public enum WelcomeRumor {
    /// Builds the unsigned rumor by `author` (the adder's Nostr identity).
    public static func make(
        welcome: Welcome, author: PublicKey, keyPackageEventID: EventID, relays: [RelayURL],
        client: String? = KeyPackageEvent.defaultClient, createdAt: Int64 = UnsignedEvent.now()
    ) -> UnsignedEvent {
        var tags: [Tag] = [Tag(["relays"] + relays.map(\.string)), Tag(["e", keyPackageEventID.hex])]
        if let client { tags.append(Tag(["client", client])) }
        tags.append(Tag(["encoding", "base64"]))
        let content = Base64.encode(MLSMessage(.welcome(welcome)).tlsSerialized)
        return UnsignedEvent(pubkey: author, createdAt: createdAt, kind: .welcome, tags: tags, content: content)
    }

    /// Seals the rumor with the author's identity key and gift-wraps it (kind 1059, throwaway key,
    /// back-dated timestamps) to the invitee, the author of the KeyPackage event.
    public static func giftWrap(_ rumor: UnsignedEvent, author: Keys, recipient: PublicKey) throws -> Event {
        try GiftWrap.wrap(rumor, author: author, recipient: recipient)
    }

    /// Builds and gift-wraps the Welcome for one invitee KeyPackage; the rumor is returned too, for
    /// the sender's records.
    public static func wrap(
        welcome: Welcome, author: Keys, invitee: PeerKeyPackage, relays: [RelayURL],
        client: String? = KeyPackageEvent.defaultClient, createdAt: Int64 = UnsignedEvent.now()
    ) throws -> (rumor: UnsignedEvent, giftWrap: Event) {
        let rumor = make(welcome: welcome, author: author.publicKey, keyPackageEventID: invitee.eventID, relays: relays,
                         client: client, createdAt: createdAt)
        return (rumor, try giftWrap(rumor, author: author, recipient: invitee.author))
    }
}
