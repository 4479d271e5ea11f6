package org.marmot.model

/** The open chat (`currentChat`): header fields, members and the loaded page of messages, oldest first. */
data class ChatView(
    val chatId: String = "",
    val peerNpub: String = "",
    val peerName: String? = null,
    val displayName: String = "",
    val messages: List<ChatMessage> = emptyList(),
    val canLoadOlder: Boolean = false,
    val isLoadingOlder: Boolean = false,
    val isLoaded: Boolean = false,
    val isGroup: Boolean = false,
    val memberNpubs: List<String> = emptyList(),
    val members: List<ChatMember> = emptyList(),
    val memberCount: Int = 0,
    val adminNpubs: List<String> = emptyList(),
    val canManage: Boolean = false,
    val protocolVersion: String = "",
    val protocolLabel: String = "",
    val isMember: Boolean = true,
    val membershipLabel: String? = null,
    val retentionSeconds: Long = 0,
    val retentionLabel: String? = null,
    val convergence: String = "settled",
    val convergenceLabel: String? = null,
    val image: String = "none",
    val imageError: String? = null,
    val isNotes: Boolean = false,
    val isMuted: Boolean = false,
    val isArchived: Boolean = false,
    val peerBlocked: Boolean = false
)
