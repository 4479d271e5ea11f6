package org.marmot.model

/**
 * One update of the core (docs/ffi-contract.md, "AppUpdate"): a slice with the rev it produced, a
 * whole state, or a side effect.
 *
 * Why [Unknown]: a newer core may send new update types; they still advance the rev. The three
 * cases carrying the nsec print without it.
 */
sealed class AppUpdate : Tagged {
    /** The revision this update produced. */
    abstract val rev: Long

    /** Whether this is a side effect, handled before the rev check whatever its rev. */
    open val isSideEffect: Boolean get() = false

    data class FullState(override val rev: Long = 0, val state: AppState = AppState()) : AppUpdate() {
        override val type get() = "fullState"
    }
    data class RouterChanged(override val rev: Long = 0, val router: Router = Router()) : AppUpdate() {
        override val type get() = "routerChanged"
    }
    data class AuthChanged(override val rev: Long = 0, val auth: AuthState = AuthState.LoggedOut) : AppUpdate() {
        override val type get() = "authChanged"
    }
    data class ChatListChanged(override val rev: Long = 0, val chatList: List<ChatSummary> = emptyList()) : AppUpdate() {
        override val type get() = "chatListChanged"
    }
    data class CurrentChatChanged(override val rev: Long = 0, val currentChat: ChatView? = null) : AppUpdate() {
        override val type get() = "currentChatChanged"
    }
    data class ToastChanged(override val rev: Long = 0, val toast: String? = null) : AppUpdate() {
        override val type get() = "toastChanged"
    }
    data class BusyChanged(override val rev: Long = 0, val busy: BusyState = BusyState()) : AppUpdate() {
        override val type get() = "busyChanged"
    }
    data class NetworkChanged(override val rev: Long = 0, val network: NetworkState = NetworkState()) : AppUpdate() {
        override val type get() = "networkChanged"
    }
    data class InvitesChanged(override val rev: Long = 0, val invites: List<Invite> = emptyList()) : AppUpdate() {
        override val type get() = "invitesChanged"
    }
    data class ProfileChanged(override val rev: Long = 0, val profile: ProfileState = ProfileState()) : AppUpdate() {
        override val type get() = "profileChanged"
    }
    data class DevicesChanged(override val rev: Long = 0, val devices: DevicesState = DevicesState()) : AppUpdate() {
        override val type get() = "devicesChanged"
    }
    data class BlockedChanged(override val rev: Long = 0, val blocked: BlockedState = BlockedState()) : AppUpdate() {
        override val type get() = "blockedChanged"
    }
    data class OutcomeChanged(
        override val rev: Long = 0,
        val outcome: Outcome? = null,
        val toast: String? = null
    ) : AppUpdate() {
        override val type get() = "outcomeChanged"
    }
    data class AccountCreated(
        override val rev: Long = 0,
        val nsec: String = "",
        val npub: String = "",
        val pubkey: String = ""
    ) : AppUpdate() {
        override val type get() = "accountCreated"
        override val isSideEffect get() = true
        override fun toString() = "AccountCreated(rev=$rev, npub=$npub)"
    }
    data class SecretAccepted(override val rev: Long = 0, val nsec: String = "", val npub: String = "") : AppUpdate() {
        override val type get() = "secretAccepted"
        override val isSideEffect get() = true
        override fun toString() = "SecretAccepted(rev=$rev, npub=$npub)"
    }
    data class SecretForgotten(override val rev: Long = 0) : AppUpdate() {
        override val type get() = "secretForgotten"
        override val isSideEffect get() = true
    }
    data class SecretExported(override val rev: Long = 0, val nsec: String = "") : AppUpdate() {
        override val type get() = "secretExported"
        override val isSideEffect get() = true
        override fun toString() = "SecretExported(rev=$rev)"
    }
    /** An update type this host does not know: ignored, but its rev counts. */
    data class Unknown(override val type: String = "", override val rev: Long = 0) : AppUpdate()

    companion object {
        /** The tags this host knows, each with its case. */
        val cases: Map<String, Class<out AppUpdate>> = listOf(
            FullState(), RouterChanged(), AuthChanged(), ChatListChanged(), CurrentChatChanged(), ToastChanged(),
            BusyChanged(), NetworkChanged(), InvitesChanged(), ProfileChanged(), DevicesChanged(), BlockedChanged(),
            OutcomeChanged(), AccountCreated(), SecretAccepted(), SecretForgotten(), SecretExported()
        ).associate { it.type to it.javaClass }

        val adapter = TaggedAdapter<AppUpdate>(cases, emptyList()) { tag, tree ->
            val rev = tree.get("rev")
            Unknown(tag, if (rev != null && rev.isJsonPrimitive) rev.asLong else 0)
        }
    }
}
