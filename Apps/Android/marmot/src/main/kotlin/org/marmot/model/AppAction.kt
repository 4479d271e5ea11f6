package org.marmot.model

import java.util.Base64

/**
 * Every action of the contract (docs/ffi-contract.md, "AppAction"), encoded by [toJson] to the JSON
 * `marmot_app_dispatch` takes: `{"schemaVersion":1,"type":"sendMessage","chatId":"…","content":"…"}`.
 *
 * Why optional fields are nullable and left out when null: the core reads an absent `seconds`,
 * `emoji`, `chatId` or `limit` as "not given", and refuses some of them as `null`. [Login] and
 * [RestoreSession] carry the nsec: they print without it and must never be logged as JSON.
 */
sealed class AppAction : Tagged {
    /** The contract JSON of this action. */
    fun toJson(): String = ContractJson.encodeAction(this)

    object CreateAccount : AppAction() { override val type get() = "createAccount" }
    data class Login(val nsec: String) : AppAction() {
        override val type get() = "login"
        override fun toString() = "Login(nsec=…)"
    }
    data class RestoreSession(val nsec: String) : AppAction() {
        override val type get() = "restoreSession"
        override fun toString() = "RestoreSession(nsec=…)"
    }
    object Logout : AppAction() { override val type get() = "logout" }
    object ExportSecret : AppAction() { override val type get() = "exportSecret" }
    data class PushScreen(val screen: Screen) : AppAction() { override val type get() = "pushScreen" }
    data class UpdateScreenStack(val screenStack: List<Screen>) : AppAction() {
        override val type get() = "updateScreenStack"
    }
    data class CreateChat(val peerNpub: String) : AppAction() { override val type get() = "createChat" }
    data class SendMessage(val chatId: String, val content: String) : AppAction() {
        override val type get() = "sendMessage"
    }
    data class RetryMessage(val chatId: String, val messageId: String) : AppAction() {
        override val type get() = "retryMessage"
    }
    /** A file; [data] is standard base64 ([of] encodes bytes). */
    data class SendAttachment(
        val chatId: String,
        val data: String,
        val filename: String,
        val mimeType: String,
        val caption: String? = null
    ) : AppAction() {
        override val type get() = "sendAttachment"
        override fun toString() = "SendAttachment(chatId=$chatId, filename=$filename, mimeType=$mimeType, ${data.length} base64 chars)"

        companion object {
            /** The action for [bytes], base64-encoded as the contract carries them. */
            fun of(chatId: String, bytes: ByteArray, filename: String, mimeType: String, caption: String? = null) =
                SendAttachment(chatId, Base64.getEncoder().encodeToString(bytes), filename, mimeType, caption)
        }
    }
    data class DownloadAttachment(val chatId: String, val messageId: String, val index: Int) : AppAction() {
        override val type get() = "downloadAttachment"
    }
    data class AddBlossomServer(val url: String) : AppAction() { override val type get() = "addBlossomServer" }
    data class RemoveBlossomServer(val url: String) : AppAction() { override val type get() = "removeBlossomServer" }
    data class OpenChat(val chatId: String) : AppAction() { override val type get() = "openChat" }
    data class MarkChatRead(val chatId: String) : AppAction() { override val type get() = "markChatRead" }
    data class React(val chatId: String, val messageId: String, val emoji: String) : AppAction() {
        override val type get() = "react"
    }
    /** Without [emoji], takes back all of ours on that message. */
    data class Unreact(val chatId: String, val messageId: String, val emoji: String? = null) : AppAction() {
        override val type get() = "unreact"
    }
    data class Reply(val chatId: String, val messageId: String, val content: String) : AppAction() {
        override val type get() = "reply"
    }
    data class EditMessage(val chatId: String, val messageId: String, val content: String) : AppAction() {
        override val type get() = "editMessage"
    }
    data class DeleteMessage(val chatId: String, val messageId: String) : AppAction() {
        override val type get() = "deleteMessage"
    }
    data class LoadOlder(val chatId: String) : AppAction() { override val type get() = "loadOlder" }
    /** [limit] is 1…2^32-1. */
    data class LoadOlderMessages(val chatId: String, val beforeMessageId: String, val limit: Long) : AppAction() {
        override val type get() = "loadOlderMessages"
    }
    data class AcceptInvite(val inviteId: String) : AppAction() { override val type get() = "acceptInvite" }
    data class DeclineInvite(val inviteId: String) : AppAction() { override val type get() = "declineInvite" }
    data class SetProfileName(val name: String) : AppAction() { override val type get() = "setProfileName" }
    data class AddRelay(val url: String) : AppAction() { override val type get() = "addRelay" }
    data class RemoveRelay(val url: String) : AppAction() { override val type get() = "removeRelay" }
    data class CreateGroup(val name: String, val memberNpubs: List<String>) : AppAction() {
        override val type get() = "createGroup"
    }
    data class AddMembers(val chatId: String, val npubs: List<String>) : AppAction() {
        override val type get() = "addMembers"
    }
    data class RemoveMember(val chatId: String, val npub: String) : AppAction() {
        override val type get() = "removeMember"
    }
    data class RenameChat(val chatId: String, val name: String) : AppAction() { override val type get() = "renameChat" }
    data class DisbandChat(val chatId: String) : AppAction() { override val type get() = "disbandChat" }
    /** A picture (PNG, JPEG, GIF or WebP, at most 10 MB) as standard base64; [mediaType] else read from the bytes. */
    data class SetChatImage(val chatId: String, val data: String, val mediaType: String? = null) : AppAction() {
        override val type get() = "setChatImage"
        override fun toString() = "SetChatImage(chatId=$chatId, mediaType=$mediaType, ${data.length} base64 chars)"
    }
    data class ClearChatImage(val chatId: String) : AppAction() { override val type get() = "clearChatImage" }
    /** [seconds] 0 turns disappearing messages off. */
    data class SetRetention(val chatId: String, val seconds: Long) : AppAction() {
        override val type get() = "setRetention"
    }
    data class SetAdmin(val chatId: String, val npub: String, val isAdmin: Boolean) : AppAction() {
        override val type get() = "setAdmin"
    }
    data class LeaveChat(val chatId: String) : AppAction() { override val type get() = "leaveChat" }
    object ClearToast : AppAction() { override val type get() = "clearToast" }
    object Foregrounded : AppAction() { override val type get() = "foregrounded" }
    object OpenNotes : AppAction() { override val type get() = "openNotes" }
    object LoadDevices : AppAction() { override val type get() = "loadDevices" }
    data class LinkDevice(val id: String) : AppAction() { override val type get() = "linkDevice" }
    data class RemoveDevice(val id: String) : AppAction() { override val type get() = "removeDevice" }
    data class AddMyDevices(val chatId: String) : AppAction() { override val type get() = "addMyDevices" }
    /** Without [seconds] (> 0 when given) the mute is for good. */
    data class MuteChat(val chatId: String, val seconds: Long? = null) : AppAction() {
        override val type get() = "muteChat"
    }
    data class UnmuteChat(val chatId: String) : AppAction() { override val type get() = "unmuteChat" }
    data class ArchiveChat(val chatId: String) : AppAction() { override val type get() = "archiveChat" }
    data class UnarchiveChat(val chatId: String) : AppAction() { override val type get() = "unarchiveChat" }
    data class BlockPerson(val npub: String) : AppAction() { override val type get() = "blockPerson" }
    data class UnblockPerson(val npub: String) : AppAction() { override val type get() = "unblockPerson" }
    /** [chatId] limits the search to one chat; [limit] defaults to 50 in the core (at most 1000). */
    data class Search(val query: String, val chatId: String? = null, val limit: Int? = null) : AppAction() {
        override val type get() = "search"
    }
}
