/// Relay connectivity of the session, for a status line (bible §4: the core owns display strings).
///
/// `keyPackagePublished` tells whether others can start a chat with this account yet (MIP-00):
/// nil until the session's first publication attempt has ended.
public struct NetworkState: Sendable, Equatable {
    public var connectedRelays: Int
    public var totalRelays: Int
    public var keyPackagePublished: Bool?
    /// Where the session stands with the relays: connecting, catching up on stored events, or live.
    public var sync: SyncStatus
    /// Whether the pending invitations have been listed once this session (an empty
    /// `AppState.invites` then means "none", not "not loaded yet").
    public var invitesLoaded: Bool
    /// The session's relays, in the order the user has them, with their connection.
    public var relays: [RelayEntry] = []
    /// Relays the user did not choose, in use because chats name them (a group's relays, issue 26),
    /// each with the chats that brought it.
    public var groupRelays: [GroupRelayEntry] = []
    /// Whether the stored chats have been listed once this session.
    public var chatsLoaded: Bool = false
    /// The Blossom servers files are uploaded to (BUD-03), in the user's order.
    public var blossomServers: [String] = []
    /// Whether the user named them; false when they are derived from the relays.
    public var blossomServersNamed = false
    /// Whether the Blossom servers have been read once this session.
    public var blossomServersLoaded = false
    /// "2 of 3 relays connected", "Connecting to 1 relay…", "Offline" — ready to show.
    public var statusText: String

    public init(
        connectedRelays: Int = 0, totalRelays: Int = 0, keyPackagePublished: Bool? = nil, sync: SyncStatus = .idle,
        invitesLoaded: Bool = false
    ) {
        self.sync = sync
        self.invitesLoaded = invitesLoaded
        self.connectedRelays = connectedRelays
        self.totalRelays = totalRelays
        self.keyPackagePublished = keyPackagePublished
        statusText = Self.text(connected: connectedRelays, total: totalRelays)
    }

    /// At least one relay is connected.
    public var isOnline: Bool { connectedRelays > 0 }

    /// The session has caught up: stored chats listed, the messaging layer's start-up catch-up done
    /// and the invitations listed. One-shot commands wait for this instead of for silence.
    public var isCaughtUp: Bool { sync == .live && invitesLoaded && chatsLoaded }

    static func text(connected: Int, total: Int) -> String {
        let noun = total == 1 ? "relay" : "relays"
        if total == 0 { return "No relays" }
        if connected == 0 { return "Offline: connecting to \(total) \(noun)…" }
        return "\(connected) of \(total) \(noun) connected"
    }
}

/// How far the session's messaging layer has got since it started (issue 16).
public enum SyncStatus: String, Sendable, Equatable {
    /// No session, or no messaging service.
    case idle
    /// The session started; no relay is connected yet.
    case connecting
    /// Relays are connected and the stored events are being read.
    case catchingUp = "catching_up"
    /// The start-up catch-up is over: what the state shows is complete, new events arrive live.
    case live
    /// The messaging layer could not start (see `AppState.lastOutcome`).
    case failed

    /// "Connecting…", "Catching up…", "" when live or idle; for a status line.
    public var statusText: String {
        switch self {
        case .idle, .live: ""
        case .connecting: "Connecting…"
        case .catchingUp: "Catching up…"
        case .failed: "Messaging unavailable"
        }
    }
}

/// One of the session's relays as the relays screen shows it (issue 17): its connection, why it is
/// failing, when it last sent anything, and the core's words for all that.
public struct RelayEntry: Sendable, Equatable, Identifiable {
    /// Where the connection to one relay stands.
    public enum State: Sendable, Equatable {
        case connected
        /// Opening a connection for the first time (or again after a deliberate disconnect).
        case connecting
        /// The last connection attempt or connection failed, for `reason` ("connection refused",
        /// "closed by the relay (going away: restarting)", "connection timed out"); retrying.
        case failing(reason: String)
        /// Not connected and not trying.
        case disconnected
    }

    /// NIP-42 authentication on the current connection (issue 44): shown so a relay that refused
    /// us says why.
    public enum Auth: Sendable, Equatable {
        /// The relay has not asked this connection to authenticate.
        case notAsked
        case authenticated
        /// Our answer was refused, with the relay's reason ("auth-required: …", "restricted: …").
        case refused(reason: String)
    }

    public var url: String
    public var state: State
    /// When the last message from this relay arrived (Unix seconds), nil before the first one.
    public var lastEventAt: Int64?
    /// Since when the relay has been down (Unix seconds): set while `failing`, nil otherwise
    /// (issue 50: which relays are down, and since when).
    public var downSince: Int64?
    /// NIP-42 authentication on the current connection.
    public var auth: Auth = .notAsked
    /// "connected · last event 2 min ago", "failing: connection refused", ready to show.
    public var statusText: String

    public var id: String { url }

    /// Whether the relay is connected now.
    public var connected: Bool { state == .connected }

    public init(url: String, state: State, lastEventAt: Int64? = nil, statusText: String) {
        self.url = url
        self.state = state
        self.lastEventAt = lastEventAt
        self.statusText = statusText
    }

    /// A relay known only as connected or not (the text has no last-event time).
    public init(url: String, connected: Bool) {
        self.init(url: url, state: connected ? .connected : .connecting, statusText: connected ? "connected" : "connecting…")
    }
}

/// A relay in use that the user did not choose: a chat's group data names it (MIP-01 `relays`).
/// Shown apart from the user's own, with where it came from, since the user did not add it and
/// cannot remove it except by leaving those chats (issue 26).
public struct GroupRelayEntry: Sendable, Equatable, Identifiable {
    /// A chat whose group names the relay.
    public struct Origin: Sendable, Equatable {
        public var chatID: ChatID
        public var title: String

        public init(chatID: ChatID, title: String) {
            self.chatID = chatID
            self.title = title
        }
    }

    /// Its connection, as for the user's own relays.
    public var relay: RelayEntry
    public var chats: [Origin]
    /// "from Book club, Team", ready to show.
    public var originText: String

    public var id: String { relay.url }
    public var url: String { relay.url }

    public init(relay: RelayEntry, chats: [Origin], originText: String) {
        self.relay = relay
        self.chats = chats
        self.originText = originText
    }
}
