import Crypto
import Foundation
import MLS
import Nostr

/// A membership change shown in a chat as a system line ("npub… added npub…", "npub… left").
///
/// Derived locally from a commit the client applied (RFC 9420 §12.4.2 Add/Remove/SelfRemove), never
/// sent: it is stored as a message whose delivery state is `.notice`, a state no received rumor can
/// take (received rumors are always `.received`), so a member cannot forge one by sending text.
public struct SystemNotice: Sendable, Hashable {
    /// What happened to `subject`.
    public struct Change: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// `actor` added `subject` to the group.
        public static let added = Change(rawValue: "added")
        /// `actor` removed `subject` from the group.
        public static let removed = Change(rawValue: "removed")
        /// `subject` left (its SelfRemove was committed by `actor`).
        public static let left = Change(rawValue: "left")
        /// `actor` renamed the group (`subject` is `actor`; the new name is the chat's current one).
        public static let renamed = Change(rawValue: "renamed")
        /// `actor` made `subject` an admin (NostrGroupData admins, MIP-01).
        public static let promoted = Change(rawValue: "promoted")
        /// `actor` took `subject` off the admins (`subject` == `actor`: it stepped down).
        public static let demoted = Change(rawValue: "demoted")
        /// `actor` invited `subject` back into a group it had left or been removed from, and
        /// `subject` accepted (MDK's `readd-after-eviction`); shown after the old messages.
        public static let readded = Change(rawValue: "readded")
        /// `actor` changed how long messages live (`subject` is `actor`; the new value is the
        /// chat's current one, v2 component 0x8005).
        public static let retentionChanged = Change(rawValue: "retention")
        /// `actor` closed the group for good (`subject` is `actor`; v2 lifecycle 0x800c).
        public static let disbanded = Change(rawValue: "disbanded")
        /// `actor` set, replaced or removed the group picture (`subject` is `actor`; v1 image
        /// fields, v2 0x8002 / 0x8007).
        public static let pictureChanged = Change(rawValue: "picture")
    }

    /// The local-only rumor kind notices are stored under; never published.
    public static let kind = Kind(rawValue: 0xF2E0)
    package static let prefix = "marmot-notice-v1"

    public let change: Change
    /// The committer.
    public let actor: PublicKey
    /// The member added, removed or gone.
    public let subject: PublicKey

    public init(change: Change, actor: PublicKey, subject: PublicKey) {
        self.change = change
        self.actor = actor
        self.subject = subject
    }

    /// The stored text: a fixed format the app parses back with `init(content:)`.
    public var content: String { "\(Self.prefix) \(change.rawValue) \(actor.hex) \(subject.hex)" }

    /// Parses a stored notice; nil for anything else.
    public init?(content: String) {
        let parts = content.split(separator: " ").map(String.init)
        guard parts.count == 4, parts[0] == Self.prefix,
              let actor = try? PublicKey(hex: parts[2]), let subject = try? PublicKey(hex: parts[3])
        else { return nil }
        self.init(change: Change(rawValue: parts[1]), actor: actor, subject: subject)
    }
}
