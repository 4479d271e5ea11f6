package org.marmot.model

/** NIP-42 on a relay's current connection: not asked, authenticated, or refused with the relay's words. */
sealed class RelayAuth : Tagged {
    object NotAsked : RelayAuth() { override val type get() = "notAsked" }
    object Authenticated : RelayAuth() { override val type get() = "authenticated" }
    data class Refused(val reason: String = "") : RelayAuth() { override val type get() = "refused" }
    data class Unknown(override val type: String = "") : RelayAuth()

    companion object {
        val adapter = TaggedAdapter<RelayAuth>(
            mapOf("refused" to Refused::class.java), listOf(NotAsked, Authenticated)
        ) { tag, _ -> Unknown(tag) }
    }
}
