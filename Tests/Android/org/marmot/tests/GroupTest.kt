package org.marmot.tests

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import org.marmot.model.AppAction
import org.marmot.model.AppState

/** A group of three managers: made by one, joined by two, every message read by the other two. */
class GroupTest {
    private fun AppState.hasMessage(text: String) = currentChat?.messages?.any { it.content == text } == true

    @Test
    fun threeMembersTalkInOneGroup() {
        val peers = listOf(Peer("ann"), Peer("ben"), Peer("cat"))
        try {
            peers.forEach { it.dispatch(AppAction.CreateAccount) }
            val npubs = peers.map { p -> p.await("${p.name} logged in") { s -> s.npub.takeIf { s.network.keyPackagePublished == true } } }
            val (ann, ben, cat) = peers
            ann.dispatch(AppAction.CreateGroup("Kotlin group", listOf(npubs[1], npubs[2])))
            val annChat = ann.await("the group open") { s -> s.currentChat?.takeIf { it.isGroup }?.chatId }
            for (member in listOf(ben, cat)) {
                val invite = member.await("${member.name}'s invitation") { s -> s.invites.firstOrNull()?.takeIf { it.canAnswer } }
                assertEquals(3, invite.memberCount)
                member.dispatch(AppAction.AcceptInvite(invite.inviteId))
                member.await("${member.name} in the group") { s -> s.currentChat?.takeIf { it.isGroup && s.invites.isEmpty() } }
            }
            val chats = listOf(annChat, ben.state.currentChat!!.chatId, cat.state.currentChat!!.chatId)
            ann.await("three members") { s -> s.currentChat?.memberCount == 3 }
            peers.forEachIndexed { index, peer ->
                val text = "group hello from ${peer.name}"
                peer.dispatch(AppAction.SendMessage(chats[index], text))
                for (other in peers - peer) other.await("${other.name} reads ${peer.name}") { s -> s.hasMessage(text) }
            }
            assertTrue(peers.all { p -> p.state.chatList.any { it.isGroup && it.displayName.isNotEmpty() } })
            assertEquals(0, peers.map { it.manager.resyncCount.get() }.sum())
        } finally {
            peers.forEach { it.close() }
        }
    }
}
