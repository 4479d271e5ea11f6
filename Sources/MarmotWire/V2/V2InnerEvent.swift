import Foundation
import Nostr

/// The inner application event of a v2 group message: unsigned NIP-01 JSON with exactly `id`,
/// `pubkey`, `created_at`, `kind`, `tags`, `content` (no `sig`, no other or repeated member), the id
/// recomputed, and `pubkey` the MLS sender's account (foundation/application-messages.md; MDK
/// `traits/src/app_event.rs` `deny_unknown_fields`, `validate_id`, `validate_sender`).
public enum V2InnerEvent {
    public static let members: Set<String> = ["id", "pubkey", "created_at", "kind", "tags", "content"]

    /// Encodes a rumor as the MLS application plaintext.
    public static func encode(_ rumor: UnsignedEvent) -> [UInt8] { Array(rumor.jsonString.utf8) }

    /// Decodes and checks an application plaintext sent by `sender`.
    public static func decode(_ plaintext: [UInt8], sender: PublicKey) throws(V2InnerEventError) -> UnsignedEvent {
        let value: JSONValue
        do { value = try JSONValue.parse(utf8: plaintext) } catch { throw .notJSON }
        guard let object = value.objectValue else { throw .notJSON }
        let keys = Set(object.keys)
        if keys.contains("sig") { throw .hasSignature }
        guard keys == members else { throw .wrongMembers(keys.symmetricDifference(members).sorted()) }
        let rumor: UnsignedEvent
        do { rumor = try UnsignedEvent(jsonValue: value, expectedAuthor: sender) } catch EventError.invalidID { throw .idMismatch } catch {
            throw .malformed
        }
        guard rumor.pubkey == sender else { throw .senderMismatch }
        return rumor
    }

    /// `decode`, also requiring a kind-9 chat message.
    public static func decodeChat(_ plaintext: [UInt8], sender: PublicKey) throws(V2InnerEventError) -> UnsignedEvent {
        let rumor = try decode(plaintext, sender: sender)
        guard rumor.kind == .chatMessage else { throw .wrongKind(rumor.kind.rawValue) }
        return rumor
    }
}

/// Why an inner application event is refused.
public enum V2InnerEventError: Error, Sendable, Equatable, CustomStringConvertible {
    case notJSON
    case hasSignature
    case wrongMembers([String])
    case idMismatch
    case malformed
    case senderMismatch
    case wrongKind(UInt16)

    public var description: String {
        switch self {
        case .notJSON: "inner event is not a JSON object"
        case .hasSignature: "inner event carries a sig"
        case .wrongMembers(let m): "inner event members differ from the six NIP-01 fields: \(m.joined(separator: ","))"
        case .idMismatch: "inner event id does not match its fields"
        case .malformed: "inner event fields are malformed"
        case .senderMismatch: "inner event pubkey is not the MLS sender"
        case .wrongKind(let k): "inner event kind \(k) is not 9"
        }
    }
}
