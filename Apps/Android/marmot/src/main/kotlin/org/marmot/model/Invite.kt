package org.marmot.model

/** A pending invitation to a chat, worded by the core (`title`, `receivedTimeDisplay`). */
data class Invite(
    val inviteId: String = "",
    val inviterNpub: String = "",
    val inviterDisplayName: String = "",
    val groupName: String = "",
    val memberCount: Int = 0,
    val title: String = "",
    val receivedTimeDisplay: String = "",
    val canAnswer: Boolean = true
)
