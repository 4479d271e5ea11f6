package org.marmot.model

/** One message of the open chat, as the core words it (time, marks, reactions, quote, files). */
data class ChatMessage(
    val id: String = "",
    val senderPubkey: String = "",
    val content: String = "",
    val timestamp: Long = 0,
    val displayTimestamp: String = "",
    val isMine: Boolean = false,
    val delivery: Delivery = Delivery.Pending,
    val kind: String = "text",
    val isInvalidated: Boolean = false,
    val invalidatedLabel: String? = null,
    val reactions: List<Reaction> = emptyList(),
    val isEdited: Boolean = false,
    val editedMark: String = "",
    val replyTo: ReplyQuote? = null,
    val mentionedPubkeys: List<String> = emptyList(),
    val mentionsMe: Boolean = false,
    val canModify: Boolean = false,
    val canDelete: Boolean = false,
    val attachments: List<Attachment> = emptyList(),
    val isBlocked: Boolean = false
)
