package org.marmot.model

/**
 * One row of the chat list, with every label the core already worded (time, preview, badges).
 *
 * Why archived chats are here too: the host filters on [isArchived] for the chat list and the
 * "Archived" screen; the badge is shown only when [asksForAttention].
 */
data class ChatSummary(
    val chatId: String = "",
    val peerNpub: String = "",
    val peerName: String? = null,
    val lastMessage: String? = null,
    val lastMessageAt: Long? = null,
    val lastMessageKind: String? = null,
    val unreadCount: Int = 0,
    val displayName: String = "",
    val lastMessagePreview: String = "",
    val lastMessageTimeDisplay: String = "",
    val isGroup: Boolean = false,
    val memberCount: Int = 0,
    val protocolVersion: String = "",
    val protocolLabel: String = "",
    val isMember: Boolean = true,
    val membershipLabel: String? = null,
    val adminNpubs: List<String> = emptyList(),
    val retentionSeconds: Long = 0,
    val convergence: String = "settled",
    val convergenceLabel: String? = null,
    val image: String = "none",
    val imageError: String? = null,
    val recentArrivals: List<ChatArrival> = emptyList(),
    val isNotes: Boolean = false,
    val isMuted: Boolean = false,
    val mutedUntil: Long? = null,
    val muteLabel: String? = null,
    val isArchived: Boolean = false,
    val asksForAttention: Boolean = false
)
