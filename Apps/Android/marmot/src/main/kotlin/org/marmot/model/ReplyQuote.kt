package org.marmot.model

/** The message a reply quotes; `text` is the core's "message not available" when it is unknown here. */
data class ReplyQuote(
    val messageId: String = "",
    val isAvailable: Boolean = false,
    val senderPubkey: String? = null,
    val senderDisplay: String = "",
    val text: String = ""
)
