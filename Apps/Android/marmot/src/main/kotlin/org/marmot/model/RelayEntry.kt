package org.marmot.model

/** One relay the user chose (`network.relays`), with the core's status words to show as is. */
data class RelayEntry(
    val url: String = "",
    val connected: Boolean = false,
    val state: RelayConnection = RelayConnection.Disconnected,
    val lastEventAt: Long? = null,
    val downSince: Long? = null,
    val statusText: String = "",
    val auth: RelayAuth = RelayAuth.NotAsked
)
