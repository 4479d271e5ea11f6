package org.marmot.model

/**
 * The whole state the core renders from (docs/ffi-contract.md, "AppState"), immutable.
 *
 * Why every field has a default: Gson then builds it through the no-argument constructor, so a field
 * an older core does not send keeps its default instead of a null in a non-null Kotlin field.
 */
data class AppState(
    val schemaVersion: Int = 1,
    val rev: Long = 0,
    val router: Router = Router(),
    val auth: AuthState = AuthState.LoggedOut,
    val busy: BusyState = BusyState(),
    val chatList: List<ChatSummary> = emptyList(),
    val currentChat: ChatView? = null,
    val toast: String? = null,
    val network: NetworkState = NetworkState(),
    val invites: List<Invite> = emptyList(),
    val lastOutcome: Outcome? = null,
    val profile: ProfileState = ProfileState(),
    val devices: DevicesState = DevicesState(),
    val blocked: BlockedState = BlockedState(),
    val search: SearchState = SearchState()
) {
    /**
     * This state with [update] applied (rule 3 of the rev rule): a slice replaced, or everything for
     * `fullState`; side effects and unknown updates change nothing but the rev.
     */
    fun applying(update: AppUpdate): AppState = when (update) {
        is AppUpdate.FullState -> update.state.copy(rev = update.rev)
        is AppUpdate.RouterChanged -> copy(rev = update.rev, router = update.router)
        is AppUpdate.AuthChanged -> copy(rev = update.rev, auth = update.auth)
        is AppUpdate.ChatListChanged -> copy(rev = update.rev, chatList = update.chatList)
        is AppUpdate.CurrentChatChanged -> copy(rev = update.rev, currentChat = update.currentChat)
        is AppUpdate.ToastChanged -> copy(rev = update.rev, toast = update.toast)
        is AppUpdate.BusyChanged -> copy(rev = update.rev, busy = update.busy)
        is AppUpdate.NetworkChanged -> copy(rev = update.rev, network = update.network)
        is AppUpdate.InvitesChanged -> copy(rev = update.rev, invites = update.invites)
        is AppUpdate.ProfileChanged -> copy(rev = update.rev, profile = update.profile)
        is AppUpdate.DevicesChanged -> copy(rev = update.rev, devices = update.devices)
        is AppUpdate.BlockedChanged -> copy(rev = update.rev, blocked = update.blocked)
        is AppUpdate.OutcomeChanged -> copy(rev = update.rev, lastOutcome = update.outcome, toast = update.toast)
        is AppUpdate.AccountCreated, is AppUpdate.SecretAccepted, is AppUpdate.SecretForgotten,
        is AppUpdate.SecretExported, is AppUpdate.Unknown -> copy(rev = update.rev)
    }

    /** The screen to show now. */
    val topScreen: Screen get() = router.topScreen

    /** The open account's npub, or null when logged out. */
    val npub: String? get() = (auth as? AuthState.LoggedIn)?.npub
}
