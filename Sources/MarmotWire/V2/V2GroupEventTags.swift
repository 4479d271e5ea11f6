import Foundation
import Nostr

/// The kind-445 tags of the v2 profile: exactly one `["h", 64 lowercase hex]` (the 0x8004
/// `nostr_group_id`) and at most one `["expiration", u64]`, nothing else, in any order
/// (transports/nostr.md; MDK `transport-nostr-peeler/src/event.rs` `kind_445_transport_group_id`).
public enum V2GroupEventTags {
    /// The tags to write: `h`, then `expiration` for application messages with retention.
    public static func tags(routing: NostrRouting, expiration: UInt64? = nil) -> [Tag] {
        var tags = [Tag(["h", routing.hTag])]
        if let expiration { tags.append(Tag(["expiration", String(expiration)])) }
        return tags
    }

    /// Validates the tag set; returns the group id and expiration.
    public static func validate(_ tags: [Tag]) throws(V2GroupEventTagsError) -> (nostrGroupID: [UInt8], expiration: UInt64?) {
        var groupID: [UInt8]?
        var expiration: UInt64?
        var sawExpiration = false
        for tag in tags {
            switch tag.name {
            case "h":
                guard groupID == nil else { throw .duplicateH }
                guard tag.fields.count == 2, let value = tag.value, value.utf8.count == 64,
                      let bytes = Hex.decode(value, count: 32)
                else { throw .invalidH }
                groupID = bytes
            case "expiration":
                guard !sawExpiration else { throw .duplicateExpiration }
                sawExpiration = true
                guard tag.fields.count == 2, let value = tag.value, !value.isEmpty, value.allSatisfy(\.isASCIIDigitCharacter),
                      let seconds = UInt64(value)
                else { throw .invalidExpiration }
                expiration = seconds
            default:
                throw .unexpectedTag(tag.name ?? "")
            }
        }
        guard let groupID else { throw .missingH }
        return (groupID, expiration)
    }

    /// Validates an event: kind 445, strict tags, and `h` equal to the group's 0x8004 id.
    public static func validate(_ event: Event, routing: NostrRouting) throws(V2GroupEventTagsError) -> UInt64? {
        guard event.kind == .groupMessage else { throw .wrongKind(event.kind.rawValue) }
        let parsed = try validate(event.tags)
        guard parsed.nostrGroupID == routing.nostrGroupID else { throw .wrongGroup }
        return parsed.expiration
    }
}

extension Character {
    fileprivate var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}

/// Why a kind-445 event's tags are refused.
public enum V2GroupEventTagsError: Error, Sendable, Equatable, CustomStringConvertible {
    case wrongKind(UInt16)
    case missingH
    case duplicateH
    case invalidH
    case duplicateExpiration
    case invalidExpiration
    case unexpectedTag(String)
    case wrongGroup

    public var description: String {
        switch self {
        case .wrongKind(let k): "group event has kind \(k), not 445"
        case .missingH: "kind-445 event lacks the h tag"
        case .duplicateH: "kind-445 event has more than one h tag"
        case .invalidH: "kind-445 h tag is not 32 bytes of lowercase hex"
        case .duplicateExpiration: "kind-445 event has more than one expiration tag"
        case .invalidExpiration: "kind-445 expiration is not an unsigned Unix time"
        case .unexpectedTag(let n): "kind-445 event carries tag \(n.debugDescription), only h and expiration are allowed"
        case .wrongGroup: "kind-445 h tag names another group"
        }
    }
}
