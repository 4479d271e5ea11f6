package org.marmot.model

/** One search result: the message, its sender's display name, its time and a snippet. */
data class SearchHit(
    val chatId: String = "",
    val messageId: String = "",
    val sender: String = "",
    val createdAt: Long = 0,
    val snippet: String = ""
)
