package org.marmot.model

/** A member account of the open chat (`currentChat.members`), this account first. */
data class ChatMember(
    val npub: String = "",
    val deviceCount: Int = 0,
    val isMe: Boolean = false,
    val isAdmin: Boolean = false,
    val devicesLabel: String? = null
)
