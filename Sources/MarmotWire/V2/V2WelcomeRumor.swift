import Foundation
import MLS
import Nostr

/// The v2 Welcome rumor: kind 444, unsigned, tags exactly `["e", key package event id]` and
/// `["relays", 1–16 ws/wss URLs]`, content base64 of an MLSMessage Welcome; NIP-59 wrapped
/// (transports/nostr.md; MDK `transport-nostr-peeler/src/peeler.rs` `peel_welcome`).
public enum V2WelcomeRumor {
    public static let maxRelays = 16
    public static let maxRelayURLBytes = 512

    /// What a valid rumor carries.
    public struct Parsed: Sendable, Hashable {
        public let keyPackageEventID: EventID
        public let relays: [String]
        public let welcome: Welcome
    }

    /// Builds the rumor (`e` first, then `relays`, as MDK writes them).
    public static func build(
        welcome: Welcome, keyPackageEventID: EventID, relays: [String], sender: PublicKey,
        createdAt: Int64 = UnsignedEvent.now()
    ) throws(V2WelcomeError) -> UnsignedEvent {
        try validateRelays(relays)
        return UnsignedEvent(
            pubkey: sender, createdAt: createdAt, kind: .welcome,
            tags: [Tag(["e", keyPackageEventID.hex]), Tag(["relays"] + relays)],
            content: Base64.encode(MLSMessage(.welcome(welcome)).tlsSerialized))
    }

    /// Checks kind, one `e` and one `relays` tag (other tags are ignored, as MDK does) and the content.
    public static func parse(_ rumor: UnsignedEvent) throws(V2WelcomeError) -> Parsed {
        guard rumor.kind == .welcome else { throw .wrongKind(rumor.kind.rawValue) }
        var eTag: Tag?
        var relaysTag: Tag?
        for tag in rumor.tags {
            switch tag.name {
            case "e":
                guard eTag == nil else { throw .duplicateTag("e") }
                eTag = tag
            case "relays":
                guard relaysTag == nil else { throw .duplicateTag("relays") }
                relaysTag = tag
            default:
                // MDK 0.9.14 reads only `e` and `relays` (`peel_welcome`, `transport-nostr-peeler/src/peeler.rs` 236-287).
                continue
            }
        }
        guard let eTag else { throw .missingTag("e") }
        guard let relaysTag else { throw .missingTag("relays") }
        guard eTag.fields.count == 2, let value = eTag.value, let id = try? EventID(hex: value) else { throw .invalidTag("e") }
        let relays = Array(relaysTag.fields.dropFirst())
        try validateRelays(relays)
        guard let raw = Base64.decode(rumor.content), !raw.isEmpty else { throw .contentNotBase64 }
        guard let message = try? MLSMessage(tlsSerialized: raw), case .welcome(let welcome) = message.body else {
            throw .notWelcomeMessage
        }
        return Parsed(keyPackageEventID: id, relays: relays, welcome: welcome)
    }

    /// The join-time checks on the decrypted GroupContext: every required component supported and
    /// the GroupInfo signer an admin (MDK refuses otherwise).
    public static func checkJoin(
        components: GroupComponents, groupInfoSigner: PublicKey,
        supported: Set<UInt16> = MarmotComponentID.supported
    ) throws(V2WelcomeError) {
        let unsupported = components.unsupportedRequired(supported: supported)
        guard unsupported.isEmpty else { throw .unsupportedRequiredComponents(unsupported) }
        guard let admins = components.adminPolicy, admins.isAdmin(groupInfoSigner) else { throw .inviterNotAdmin }
    }

    static func validateRelays(_ relays: [String]) throws(V2WelcomeError) {
        guard !relays.isEmpty else { throw .invalidTag("relays") }
        guard relays.count <= maxRelays else { throw .invalidTag("relays") }
        for relay in relays {
            guard relay.utf8.count <= maxRelayURLBytes, (try? RelayURL(relay)) != nil else { throw .invalidTag("relays") }
        }
    }
}

/// Why a v2 Welcome is refused.
public enum V2WelcomeError: Error, Sendable, Equatable, CustomStringConvertible {
    case wrongKind(UInt16)
    case missingTag(String)
    case duplicateTag(String)
    case invalidTag(String)
    case contentNotBase64
    case notWelcomeMessage
    case unsupportedRequiredComponents([UInt16])
    case inviterNotAdmin

    public var description: String {
        switch self {
        case .wrongKind(let k): "welcome rumor has kind \(k), not 444"
        case .missingTag(let n): "welcome rumor lacks the \(n) tag"
        case .duplicateTag(let n): "welcome rumor repeats the \(n) tag"
        case .invalidTag(let n): "welcome rumor has an invalid \(n) tag"
        case .contentNotBase64: "welcome content is not base64"
        case .notWelcomeMessage: "welcome content is not an MLSMessage Welcome"
        case .unsupportedRequiredComponents(let ids): "group requires unsupported components \(ids.map { String(format: "0x%04x", $0) })"
        case .inviterNotAdmin: "the GroupInfo signer is not an admin"
        }
    }
}
