import Foundation
import Nostr

/// The plaintext of a Marmot application message: an unsigned Nostr event ("rumor") serialized as
/// compact JSON with keys `id,pubkey,created_at,kind,tags,content` and no `sig` (MIP-03; marmot-wire
/// §5.4). Kind 9 is chat; any kind may travel this way (reactions, MIP-05, …).
///
/// The rumor's `pubkey` must be the MLS sender's credential identity, or receivers drop it
/// (`authorMismatch`), and per MIP-03 it carries neither `h` tags nor a signature.
public struct ChatRumor: Sendable, Hashable {
    /// The unsigned event; its id is computed from the fields.
    public let rumor: UnsignedEvent

    /// Builds a rumor by `author`; `h` tags are refused because MIP-03 forbids them inside.
    public init(
        author: PublicKey, content: String, kind: Kind = .chatMessage, tags: [Tag] = [],
        createdAt: Int64 = UnsignedEvent.now()
    ) throws(ChatRumorError) {
        guard !tags.contains(where: { $0.name == "h" }) else { throw .groupTagInside }
        rumor = UnsignedEvent(pubkey: author, createdAt: createdAt, kind: kind, tags: tags, content: content)
    }

    /// Parses decrypted application data, checking it against the authenticated MLS sender.
    ///
    /// A given `id` must match the fields (MDK always sets it; an absent one is computed); a `sig`
    /// field, an `h` tag or a `pubkey` other than `sender` is rejected.
    public init(plaintext: Data, sender: PublicKey) throws(ChatRumorError) {
        let value: JSONValue
        do { value = try JSONValue.parse(utf8: plaintext) } catch { throw .malformed(error.description) }
        guard let object = value.objectValue else { throw .malformed("rumor is not a JSON object") }
        guard object["sig"] == nil else { throw .signed }
        let rumor: UnsignedEvent
        do { rumor = try UnsignedEvent(jsonValue: value, expectedAuthor: sender) } catch let error as EventError {
            throw error == .invalidID ? .invalidID : .malformed(error.description)
        } catch {
            throw .malformed("\(error)")
        }
        guard !rumor.tags.contains(where: { $0.name == "h" }) else { throw .groupTagInside }
        guard rumor.pubkey == sender else { throw .authorMismatch(rumor: rumor.pubkey, sender: sender) }
        self.rumor = rumor
    }

    /// Wraps a rumor whose checks were made by the caller (a v2 inner event, `V2InnerEvent`).
    package init(validated rumor: UnsignedEvent) { self.rumor = rumor }

    public var id: EventID { rumor.id }
    public var author: PublicKey { rumor.pubkey }
    public var kind: Kind { rumor.kind }
    public var tags: [Tag] { rumor.tags }
    public var content: String { rumor.content }
    public var createdAt: Int64 { rumor.createdAt }

    /// The bytes handed to MLS as application data: the rumor's compact JSON in UTF-8.
    public var plaintext: Data { Data(rumor.jsonString.utf8) }
}

/// Why application data is not an acceptable rumor (MIP-03; marmot-wire §5.4).
public enum ChatRumorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a JSON event object with the required fields.
    case malformed(String)
    /// The given `id` does not match the fields.
    case invalidID
    /// The rumor carries a `sig`; inner events must be unsigned.
    case signed
    /// The rumor carries an `h` tag, which belongs only on the outer event.
    case groupTagInside
    /// The rumor's pubkey is not the MLS sender's identity (impersonation attempt).
    case authorMismatch(rumor: PublicKey, sender: PublicKey)

    public var description: String {
        switch self {
        case .malformed(let why): "rumor: malformed: \(why)"
        case .invalidID: "rumor: id does not match the content"
        case .signed: "rumor: inner events must not be signed"
        case .groupTagInside: "rumor: inner events must not carry an h tag"
        case .authorMismatch(let r, let s): "rumor: pubkey \(r) is not the MLS sender \(s)"
        }
    }
}
