/// What the core sends to the platform after each committed mutation (MVP spec, Updates).
///
/// The contract (issue 16), relied on by every renderer and asserted by `UpdateContractTests`:
/// 1. Each update carries the full current value of what changed, never a diff, and the `rev` it
///    produced. Revs are strictly consecutive: one reduction is at most one state rev.
/// 2. A reduction that changes exactly one slice emits that slice's variant (`toast` and
///    `lastOutcome` form one slice: `outcomeChanged`, or `toastChanged` when only the toast changed).
/// 3. A reduction that changes several slices (login, logout, a message sent while its chat is open)
///    emits one `fullState`, never a sequence of slice updates, so every rev is a consistent state.
///    A login is therefore `[secretAccepted, fullState]` and a logout `[secretForgotten, fullState]`.
/// 4. Side effects (`accountCreated`, `secretAccepted`, `secretForgotten`, `secretExported`) take a rev
///    of their own, change no state, come before the state change they belong to, and are handled by
///    the platform before its rev check (a side effect is never skipped as stale).
/// 5. A platform that sees a rev gap resyncs from `MarmotApp.state()`; it never reorders.
///
/// Printing an update shows revs and sizes only: never the nsec, never message text.
public enum AppUpdate: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    case fullState(AppState)
    case routerChanged(rev: UInt64, router: Router)
    case authChanged(rev: UInt64, auth: AuthState)
    case chatListChanged(rev: UInt64, chatList: [ChatSummary])
    case currentChatChanged(rev: UInt64, currentChat: ChatViewState?)
    case toastChanged(rev: UInt64, toast: String?)
    case busyChanged(rev: UInt64, busy: BusyState)
    case networkChanged(rev: UInt64, network: NetworkState)
    /// The pending invitations changed (one arrived, was accepted or declined).
    case invitesChanged(rev: UInt64, invites: [InviteSummary])
    /// This account's profile (its name) changed.
    case profileChanged(rev: UInt64, profile: ProfileState)
    /// This account's devices as last read, linked or removed (issue 29).
    case devicesChanged(rev: UInt64, devices: DevicesState)
    /// The people this account blocked changed, or were read (issue 48).
    case blockedChanged(rev: UInt64, blocked: BlockedState)
    /// The freshly generated account secret, handed to the platform to keep in secure storage
    /// (Keychain/Keystore). This is the only way a secret leaves the core (MVP spec, Key Storage).
    case accountCreated(rev: UInt64, nsec: String, pubkey: String, npub: String)
    /// The last operation's outcome changed (and with it the toast derived from it).
    case outcomeChanged(rev: UInt64, outcome: OperationOutcome?, toast: String?)
    /// Side effect: a login was accepted; the platform keeps `nsec` in secure storage now (and not
    /// before: a refused login leaves nothing to clean up).
    case secretAccepted(rev: UInt64, nsec: String, npub: String)
    /// Side effect: the user logged out; the platform forgets the stored nsec.
    case secretForgotten(rev: UInt64)
    /// Side effect: the nsec the user asked to export (`AppAction.exportSecret`), to show once behind
    /// the confirmation the platform already asked for; never stored or logged.
    case secretExported(rev: UInt64, nsec: String)

    /// The revision this update produced.
    public var rev: UInt64 {
        switch self {
        case .fullState(let state): state.rev
        case .routerChanged(let rev, _), .authChanged(let rev, _), .chatListChanged(let rev, _),
            .currentChatChanged(let rev, _), .toastChanged(let rev, _), .busyChanged(let rev, _),
            .networkChanged(let rev, _), .invitesChanged(let rev, _), .profileChanged(let rev, _),
            .devicesChanged(let rev, _), .blockedChanged(let rev, _):
            rev
        case .accountCreated(let rev, _, _, _): rev
        case .outcomeChanged(let rev, _, _): rev
        case .secretAccepted(let rev, _, _), .secretExported(let rev, _): rev
        case .secretForgotten(let rev): rev
        }
    }

    /// Whether this is a side effect: it changes no state and must be handled whatever its rev.
    public var isSideEffect: Bool {
        switch self {
        case .accountCreated, .secretAccepted, .secretForgotten, .secretExported: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .fullState(let state): "fullState(rev: \(state.rev))"
        case .routerChanged(let rev, let router):
            "routerChanged(rev: \(rev), top: \(router.topScreen.tag), depth: \(router.screenStack.count))"
        case .authChanged(let rev, let auth):
            "authChanged(rev: \(rev), loggedIn: \(auth.isLoggedIn))"
        case .chatListChanged(let rev, let list): "chatListChanged(rev: \(rev), chats: \(list.count))"
        case .currentChatChanged(let rev, let chat):
            "currentChatChanged(rev: \(rev), chat: \(chat.map { "\($0.chatID)" } ?? "none"), messages: \(chat?.messages.count ?? 0))"
        case .toastChanged(let rev, let toast): "toastChanged(rev: \(rev), shown: \(toast != nil))"
        case .busyChanged(let rev, _): "busyChanged(rev: \(rev))"
        case .networkChanged(let rev, let network):
            "networkChanged(rev: \(rev), relays: \(network.connectedRelays)/\(network.totalRelays))"
        case .invitesChanged(let rev, let invites): "invitesChanged(rev: \(rev), invites: \(invites.count))"
        case .profileChanged(let rev, let profile): "profileChanged(rev: \(rev), named: \(profile.name != nil))"
        case .devicesChanged(let rev, let devices): "devicesChanged(rev: \(rev), devices: \(devices.list.count))"
        case .blockedChanged(let rev, let blocked): "blockedChanged(rev: \(rev), people: \(blocked.people.count))"
        case .accountCreated(let rev, _, _, let npub): "accountCreated(rev: \(rev), npub: \(npub), nsec: redacted)"
        case .outcomeChanged(let rev, let outcome, let toast):
            "outcomeChanged(rev: \(rev), code: \(outcome?.code.rawValue ?? "none"), toast: \(toast != nil))"
        case .secretAccepted(let rev, _, let npub): "secretAccepted(rev: \(rev), npub: \(npub), nsec: redacted)"
        case .secretForgotten(let rev): "secretForgotten(rev: \(rev))"
        case .secretExported(let rev, _): "secretExported(rev: \(rev), nsec: redacted)"
        }
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["summary": description], displayStyle: .enum) }

    /// `state` with this update's slice (or whole state) in place and its rev, whatever `state`'s
    /// rev was: checking revs is the caller's rule (MVP spec, Revision Counter).
    public func applied(to state: AppState) -> AppState {
        var next = state
        next.rev = rev
        switch self {
        case .fullState(let full): next = full
        case .routerChanged(_, let router): next.router = router
        case .authChanged(_, let auth): next.auth = auth
        case .chatListChanged(_, let chatList): next.chatList = chatList
        case .currentChatChanged(_, let currentChat): next.currentChat = currentChat
        case .toastChanged(_, let toast): next.toast = toast
        case .busyChanged(_, let busy): next.busy = busy
        case .networkChanged(_, let network): next.network = network
        case .invitesChanged(_, let invites): next.invites = invites
        case .profileChanged(_, let profile): next.profile = profile
        case .devicesChanged(_, let devices): next.devices = devices
        case .blockedChanged(_, let blocked): next.blocked = blocked
        case .outcomeChanged(_, let outcome, let toast):
            next.lastOutcome = outcome
            next.toast = toast
        case .accountCreated, .secretAccepted, .secretForgotten, .secretExported: break
        }
        return next
    }
}

/// Receives the core's updates, one at a time and in rev order, on the core's listener task
/// (MVP spec, FFI Surface). Implementations hop to their UI thread themselves.
public protocol AppReconciler: Sendable {
    func reconcile(_ update: AppUpdate)
}
