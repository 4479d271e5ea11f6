package org.marmot.model

/**
 * One message that arrived in a chat this session (`chatList[].recentArrivals`); `sequence` grows by one
 * per arrival across all chats, so a host that reads every update sees each once.
 */
data class ChatArrival(
    val sequence: Long = 0,
    val messageId: String = "",
    val senderPubkey: String = "",
    val senderNpub: String = "",
    val kind: String = "text",
    val nostrKind: Int? = null,
    val timestamp: Long = 0,
    val displayTimestamp: String = "",
    val target: String? = null,
    val text: String = "",
    val isMine: Boolean = false
)
