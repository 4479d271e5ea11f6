import Foundation
import Nostr

/// An admin's deletion of a chat message (kind 4891), parsed and checked.
///
/// Why its own kind: kind 5 (NIP-09) deletes only its author's own messages; an admin deleting
/// someone else's message says so with kind 4891, which every current Marmot client reads the
/// same way (spec `features/content-moderation.md`, "Admin deletion"; `foundation/registries.md`).
/// Grammar: exactly one `e` tag whose second element is the target's id in 64 lowercase hex digits
/// (further elements and other tags ignored); `content` a JSON object with exactly the members
/// `v` = the integer 1 and `action` = "remove", no duplicate keys. Anything else has no effect.
/// Whether the author may delete is decided elsewhere, by the state the event was sent in.
public struct AdminDeletion: Sendable, Hashable {
    /// Kind 4891, allocated by Marmot for admin deletion inside MLS app payloads.
    public static let kind = Kind(4891)
    /// The one content the first version defines.
    public static let content = #"{"v":1,"action":"remove"}"#

    /// The chat message (kind 9) to hide.
    public let target: EventID

    /// The deletion of `target`.
    public init(target: EventID) { self.target = target }

    /// Reads a rumor's kind, tags and content; nil when it is not a well-formed admin deletion.
    public init?(kind: Kind, tags: [Tag], content: String) {
        guard kind == Self.kind else { return nil }
        let references = tags.filter { $0.name == "e" }
        guard references.count == 1, let hex = references[0].value, hex.count == 64,
              hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
              let target = try? EventID(hex: hex)
        else { return nil }
        guard let value = try? JSONValue.parse(content), let object = value.objectValue, Set(object.keys) == ["v", "action"],
              case .number("1") = object["v"], object["action"]?.stringValue == "remove"
        else { return nil }
        self.target = target
    }

    /// The rumor's tags: the one `e` tag.
    public var tags: [Tag] { [Tag(["e", target.hex])] }
}
