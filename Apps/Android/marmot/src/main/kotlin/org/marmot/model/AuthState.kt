package org.marmot.model

/** Whether an account is open: `{"type":"loggedOut"}` or `{"type":"loggedIn","npub","pubkey"}`. */
sealed class AuthState : Tagged {
    object LoggedOut : AuthState() { override val type get() = "loggedOut" }
    data class LoggedIn(val npub: String = "", val pubkey: String = "") : AuthState() {
        override val type get() = "loggedIn"
    }
    data class Unknown(override val type: String = "") : AuthState()

    companion object {
        val adapter = TaggedAdapter<AuthState>(
            mapOf("loggedIn" to LoggedIn::class.java), listOf(LoggedOut)
        ) { tag, _ -> Unknown(tag) }
    }
}
