import Foundation

/// Everything the UI shows, as one value; the platform renders it and nothing else (MVP spec, State Model).
///
/// Produced only by the core's actor. `rev` is the revision of the last committed mutation: every
/// `AppUpdate` carries the rev it produced, and `MarmotApp.state()` returns the snapshot at that rev.
public struct AppState: Sendable, Equatable {
    public var rev: UInt64
    public var router: Router
    public var auth: AuthState
    public var busy: BusyState
    public var chatList: [ChatSummary]
    public var currentChat: ChatViewState?
    /// The transient message shown to the user: derived from `lastOutcome` (its `toastText`) when an
    /// operation ends, and cleared by the core itself after `AppConfiguration.toastDuration`.
    public var toast: String?
    /// How the last user operation ended, with a stable code (issue 16): renderers and the CLI decide
    /// from it, never from the toast's text. Outlives the toast; replaced by the next outcome.
    public var lastOutcome: OperationOutcome?
    /// Relay connectivity and key package publication of the session.
    public var network: NetworkState
    /// Invitations waiting for the user to accept or decline, newest first (shown above the chats).
    public var invites: [InviteSummary]
    /// This account's public profile (the name others see instead of the npub).
    public var profile: ProfileState = ProfileState()
    /// This account's devices, as last read (`AppAction.loadDevices`, issue 29).
    public var devices: DevicesState = DevicesState()
    /// The people this account blocked (issue 48).
    public var blocked: BlockedState = BlockedState()
    /// The last message search and its results (issue 48).
    public var search: SearchState = SearchState()

    public init(
        rev: UInt64, router: Router, auth: AuthState, busy: BusyState, chatList: [ChatSummary],
        currentChat: ChatViewState?, toast: String?, network: NetworkState = NetworkState(),
        invites: [InviteSummary] = [], lastOutcome: OperationOutcome? = nil
    ) {
        self.lastOutcome = lastOutcome
        self.rev = rev
        self.router = router
        self.auth = auth
        self.busy = busy
        self.chatList = chatList
        self.currentChat = currentChat
        self.toast = toast
        self.network = network
        self.invites = invites
    }

    /// Whether the chat list shows its "No chats yet" placeholder: no chat and no invitation, and the
    /// session has caught up (or has no messaging layer), so an empty list is not merely unloaded.
    public var showsNoChatsPlaceholder: Bool {
        chatList.isEmpty && invites.isEmpty && (network.isCaughtUp || network.sync == .idle || network.sync == .failed)
    }

    /// The chat list without archived chats: what a chat list shows by default (issue 48).
    public var inboxChats: [ChatSummary] { chatList.filter { !$0.isArchived } }

    /// The archived chats only, in chat-list order (issue 48).
    public var archivedChats: [ChatSummary] { chatList.filter(\.isArchived) }

    /// The logged-out state at rev 0: login screen, nothing loaded.
    public static let initial = AppState(
        rev: 0, router: .loggedOut, auth: .loggedOut, busy: BusyState(), chatList: [], currentChat: nil,
        toast: nil)
}

/// Navigation as state: a root screen and the screens pushed on top of it (MVP spec, Router).
///
/// The platform binds `screenStack` to its native navigation stack and reports pops with
/// `AppAction.updateScreenStack`; the core stays the source of truth.
public struct Router: Sendable, Equatable {
    public var defaultScreen: Screen
    public var screenStack: [Screen]

    public init(defaultScreen: Screen, screenStack: [Screen] = []) {
        self.defaultScreen = defaultScreen
        self.screenStack = screenStack
    }

    /// The screen on top: the last pushed one, else the root.
    public var topScreen: Screen { screenStack.last ?? defaultScreen }

    static let loggedOut = Router(defaultScreen: .login)
    static let loggedIn = Router(defaultScreen: .chatList)
}

/// One screen of the app.
public enum Screen: Sendable, Hashable {
    case login
    case chatList
    case chat(chatID: ChatID)
    case newChat
    /// A chat's members, admins and management (add, remove, rename, promote, leave); pushed on
    /// top of its chat, and `currentChat` stays that chat.
    case groupInfo(chatID: ChatID)
    /// Starting a named group with several npubs.
    case newGroup
    /// The account's relays with their connection (`NetworkState.relays`): adding and removing them.
    case relays
    /// The account's own profile: the name others see (`AppState.profile`).
    case profile
    /// This account's devices (`AppState.devices`): linking a waiting one, removing a linked one
    /// (issue 29). Renderers dispatch `.loadDevices` when they show it.
    case devices
}

/// Whether an identity is active; carries only public identifiers, never the secret key.
public enum AuthState: Sendable, Equatable {
    case loggedOut
    /// `pubkey` is lower-case hex, `npub` its NIP-19 form.
    case loggedIn(npub: String, pubkey: String)

    public var isLoggedIn: Bool {
        if case .loggedIn = self { return true }
        return false
    }

    /// The npub shortened for a title bar (`npub1abcd…wxyz`); nil when logged out. Renderers show this
    /// and never shorten the npub themselves.
    public var shortNpub: String? {
        guard case .loggedIn(let npub, _) = self else { return nil }
        return DisplayFormatter.short(npub)
    }
}

/// Flags for work in flight, so the UI shows spinners without timing heuristics (bible §2.3).
public struct BusyState: Sendable, Equatable {
    public var creatingAccount: Bool
    public var loggingIn: Bool
    public var creatingChat: Bool
    public var restoringSession: Bool
    /// The invitations being accepted or declined (their buttons show a spinner).
    public var answeringInvites: Set<InviteID>
    /// Chats accepted whose join is still finishing in the background: history being read, then the
    /// key update MIP-02 asks of a new member. The chat is usable meanwhile; a one-shot renderer
    /// (the CLI) waits for it before exiting so the update is not left for a later start.
    public var finishingJoins: Set<ChatID>

    public init(
        creatingAccount: Bool = false, loggingIn: Bool = false, creatingChat: Bool = false,
        restoringSession: Bool = false, answeringInvites: Set<InviteID> = [], finishingJoins: Set<ChatID> = []
    ) {
        self.finishingJoins = finishingJoins
        self.creatingAccount = creatingAccount
        self.loggingIn = loggingIn
        self.creatingChat = creatingChat
        self.restoringSession = restoringSession
        self.answeringInvites = answeringInvites
    }

    /// True while an account is being created, logged in or restored.
    public var isAuthenticating: Bool { creatingAccount || loggingIn || restoringSession }

    /// True while anything is in flight.
    public var isBusy: Bool { isAuthenticating || creatingChat || !answeringInvites.isEmpty }

    /// What the busy indicator says, by priority (authentication first); nil when idle. The one
    /// wording every renderer shows.
    public var statusText: String? {
        if creatingAccount { return "Creating account…" }
        if loggingIn { return "Logging in…" }
        if restoringSession { return "Restoring session…" }
        if creatingChat { return "Creating chat…" }
        if !answeringInvites.isEmpty { return "Answering invitation…" }
        return nil
    }

    /// Whether the login screen accepts a login or account creation now.
    public var canAuthenticate: Bool { !isAuthenticating }

    /// Whether the New Chat screen accepts a (non-blank) npub now.
    public func canCreateChat(peerNpub: String) -> Bool {
        !creatingChat && !peerNpub.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    /// Whether the login screen's nsec field may be submitted now.
    public func canLogin(nsec: String) -> Bool {
        canAuthenticate && !nsec.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    /// Whether the invitation can be accepted or declined now (not already being answered).
    public func canAnswer(_ invite: InviteID) -> Bool { !answeringInvites.contains(invite) }
}

/// This account's profile as published (NIP-01 kind 0).
public struct ProfileState: Sendable, Equatable {
    /// The name others see; nil until one is set or found on the relays.
    public var name: String?
    /// Whether a new name is being published.
    public var saving: Bool
    /// Whether this session's look-up of the name on the relays has ended (found or not): until
    /// then `name` is what this device had cached, so a reader that must report the relays' name
    /// (`marmot account name`) waits for it.
    public var lookedUp: Bool

    public init(name: String? = nil, saving: Bool = false, lookedUp: Bool = false) {
        self.name = name
        self.saving = saving
        self.lookedUp = lookedUp
    }

    /// "Saving your name…" while a new name is published, else nil: the one wording every renderer
    /// shows (bible §4: the core owns display strings).
    public var statusText: String? { saving ? "Saving your name…" : nil }
}
