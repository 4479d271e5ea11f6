package org.marmot.model

/** A relay's connection (`network.relays[].state`): connected, connecting, disconnected or failing. */
sealed class RelayConnection : Tagged {
    object Connected : RelayConnection() { override val type get() = "connected" }
    object Connecting : RelayConnection() { override val type get() = "connecting" }
    object Disconnected : RelayConnection() { override val type get() = "disconnected" }
    data class Failing(val reason: String = "") : RelayConnection() { override val type get() = "failing" }
    data class Unknown(override val type: String = "") : RelayConnection()

    companion object {
        val adapter = TaggedAdapter<RelayConnection>(
            mapOf("failing" to Failing::class.java), listOf(Connected, Connecting, Disconnected)
        ) { tag, _ -> Unknown(tag) }
    }
}
