package org.marmot.model

/** A chat named by id and title (the chats that brought a group relay). */
data class ChatRef(val chatId: String = "", val title: String = "")
