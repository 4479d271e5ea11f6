package org.marmot.model

/**
 * A relay in use that a chat's group named (`network.groupRelays`): a relay's fields plus the chats
 * that brought it; it cannot be removed, only left with the chats.
 */
data class GroupRelayEntry(
    val url: String = "",
    val connected: Boolean = false,
    val state: RelayConnection = RelayConnection.Disconnected,
    val lastEventAt: Long? = null,
    val downSince: Long? = null,
    val statusText: String = "",
    val auth: RelayAuth = RelayAuth.NotAsked,
    val chats: List<ChatRef> = emptyList(),
    val originText: String = ""
)
