package org.marmot.model

/**
 * A screen of the router (`{"type":"chat","chatId":"…"}`); the top one is what the host shows.
 *
 * Why [Unknown]: a newer core may add screens; a host shows its default screen for one it does not know.
 */
sealed class Screen : Tagged {
    object Login : Screen() { override val type get() = "login" }
    object ChatList : Screen() { override val type get() = "chatList" }
    object NewChat : Screen() { override val type get() = "newChat" }
    object NewGroup : Screen() { override val type get() = "newGroup" }
    object Relays : Screen() { override val type get() = "relays" }
    object Profile : Screen() { override val type get() = "profile" }
    object Devices : Screen() { override val type get() = "devices" }
    data class Chat(val chatId: String = "") : Screen() { override val type get() = "chat" }
    data class GroupInfo(val chatId: String = "") : Screen() { override val type get() = "groupInfo" }
    data class Unknown(override val type: String = "") : Screen()

    companion object {
        val adapter = TaggedAdapter<Screen>(
            mapOf("chat" to Chat::class.java, "groupInfo" to GroupInfo::class.java),
            listOf(Login, ChatList, NewChat, NewGroup, Relays, Profile, Devices)
        ) { tag, _ -> Unknown(tag) }
    }
}
