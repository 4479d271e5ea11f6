package org.marmot.model

/** The relays and media servers and how far the account has synced (`sync`: idle … live, failed). */
data class NetworkState(
    val connectedRelays: Int = 0,
    val totalRelays: Int = 0,
    val keyPackagePublished: Boolean? = null,
    val statusText: String = "",
    val sync: String = "idle",
    val invitesLoaded: Boolean = false,
    val chatsLoaded: Boolean = false,
    val relays: List<RelayEntry> = emptyList(),
    val groupRelays: List<GroupRelayEntry> = emptyList(),
    val blossomServers: List<String> = emptyList(),
    val blossomServersNamed: Boolean = false,
    val blossomServersLoaded: Boolean = false
)
