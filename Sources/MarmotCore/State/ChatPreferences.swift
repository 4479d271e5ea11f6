import Nostr

/// Whether a chat is muted (issue 48): not, until a moment, or for good.
///
/// A timed mute ends by itself: past its moment it counts as off, and the core's timer redraws the
/// chat list then (`AppCore.scheduleMuteClock`).
public enum ChatMute: Sendable, Equatable, Hashable {
    case off
    /// Muted until these Unix seconds.
    case until(Int64)
    case forever

    /// Whether the chat is muted at `now` (Unix seconds).
    public func isActive(at now: Int64) -> Bool {
        switch self {
        case .off: false
        case .until(let end): end > now
        case .forever: true
        }
    }

    /// The end of a timed mute still running at `now`; nil for none and for a mute for good.
    public func end(after now: Int64) -> Int64? {
        if case .until(let end) = self, end > now { return end }
        return nil
    }
}

/// How long a mute the user asks for lasts (`AppAction.muteChat`); the core turns it into a moment.
public enum MuteDuration: Sendable, Equatable, Hashable {
    case seconds(UInt64)
    case forever
}

/// What the user chose for one chat on this device (issue 48): kept across restarts, never sent.
public struct ChatPreferences: Sendable, Equatable, Hashable {
    public var mute: ChatMute
    /// When the chat was archived (Unix seconds); nil while it is not. An archived chat is left out
    /// of `AppState.inboxChats` until unarchived, or until a message written after this moment
    /// arrives while the chat is not muted (also one that arrived while the app was closed).
    public var archivedAt: Int64?

    public init(mute: ChatMute = .off, archivedAt: Int64? = nil) {
        self.mute = mute
        self.archivedAt = archivedAt
    }

    /// Whether the chat is archived.
    public var archived: Bool { archivedAt != nil }
}

/// A person this account blocked, as the messaging layer keeps it (issue 48).
public struct BlockedPerson: Sendable, Equatable, Hashable {
    public var person: PublicKey
    /// Unix seconds.
    public var blockedAt: Int64

    public init(person: PublicKey, blockedAt: Int64) {
        self.person = person
        self.blockedAt = blockedAt
    }
}

/// The people this account blocked (issue 48), as renderers list them; nothing about it is sent to anyone.
///
/// Their invitations are not listed, a 1:1 chat with them is left out of the chat list and refuses
/// sends (`OutcomeCode.blocked`), and their messages in groups show collapsed (`ChatMessage.isBlocked`).
public struct BlockedState: Sendable, Equatable {
    /// Longest blocked first.
    public var people: [BlockedEntry] = []
    /// Whether the list has been read from storage this session.
    public var loaded = false

    public init(people: [BlockedEntry] = [], loaded: Bool = false) {
        self.people = people
        self.loaded = loaded
    }

    /// Whether `npub` is blocked.
    public func contains(npub: String) -> Bool { people.contains { $0.npub == npub } }
}

/// One blocked person, display strings computed by the core.
public struct BlockedEntry: Sendable, Equatable, Identifiable {
    public var npub: String
    /// Lower-case hex public key.
    public var pubkey: String
    /// A shortened npub such as `npub1abcd…wxyz`.
    public var displayName: String
    /// Unix seconds.
    public var blockedAt: Int64
    /// "14:05", "Yesterday", "Mar 4".
    public var blockedTimeDisplay: String
    public var id: String { npub }

    public init(npub: String, pubkey: String, displayName: String, blockedAt: Int64, blockedTimeDisplay: String) {
        self.npub = npub
        self.pubkey = pubkey
        self.displayName = displayName
        self.blockedAt = blockedAt
        self.blockedTimeDisplay = blockedTimeDisplay
    }
}
