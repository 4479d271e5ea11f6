package org.marmot.tests

import org.junit.AfterClass
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.BeforeClass
import org.junit.FixMethodOrder
import org.junit.Test
import org.junit.runners.MethodSorters
import org.marmot.StateObserver
import org.marmot.model.AppAction
import org.marmot.model.AppState
import org.marmot.model.Delivery
import java.util.Collections

/**
 * A one-to-one chat between two managers over `marmot relay`: opened by npub, the invitation accepted
 * from inside an observer callback, messages both ways with Pending → Sent → received, then a file.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
class ChatTest {
    companion object {
        lateinit var alice: Peer
        lateinit var bob: Peer
        lateinit var aliceNpub: String
        lateinit var bobNpub: String
        var aliceChat = ""
        var bobChat = ""

        @BeforeClass
        @JvmStatic
        fun accounts() {
            alice = Peer("alice")
            bob = Peer("bob")
            alice.dispatch(AppAction.CreateAccount)
            bob.dispatch(AppAction.CreateAccount)
            aliceNpub = alice.await("alice logged in") { s -> s.npub.takeIf { s.network.keyPackagePublished == true } }
            bobNpub = bob.await("bob logged in") { s -> s.npub.takeIf { s.network.keyPackagePublished == true } }
        }

        @AfterClass
        @JvmStatic
        fun close() {
            alice.close()
            bob.close()
        }
    }

    @Test
    fun a_aChatByNpubWithAnInvitationAcceptedFromAnObserver() {
        // Bob's renderer accepts the first invitation it sees, dispatching from inside the callback.
        val accepted = Collections.synchronizedList(mutableListOf<String>())
        bob.manager.addObserver(object : StateObserver {
            override fun onStateChanged(state: AppState) {
                val invite = state.invites.firstOrNull() ?: return
                if (invite.inviteId in accepted || !invite.canAnswer) return
                accepted.add(invite.inviteId)
                assertEquals(TestEnv.MAIN_THREAD, Thread.currentThread().name)
                assertEquals(0, bob.manager.dispatch(AppAction.AcceptInvite(invite.inviteId)))
            }
        })
        alice.dispatch(AppAction.CreateChat(bobNpub))
        aliceChat = alice.await("alice's chat open") { s -> s.currentChat?.chatId }
        bobChat = bob.await("bob's chat after accepting") { s -> s.currentChat?.chatId.takeIf { s.invites.isEmpty() } }
        assertEquals(1, accepted.size)
        assertEquals(bobNpub, alice.state.currentChat!!.peerNpub)
        assertEquals(aliceNpub, bob.state.currentChat!!.peerNpub)
        assertTrue(alice.state.chatList.any { it.chatId == aliceChat })
    }

    @Test
    fun b_messagesBothWaysGoPendingThenSentAndArrive() {
        val text = "hello from Kotlin, alice"
        val seen = Collections.synchronizedList(mutableListOf<Delivery>())
        val watcher = object : StateObserver {
            override fun onStateChanged(state: AppState) {
                val mine = state.currentChat?.messages?.firstOrNull { it.isMine && it.content == text } ?: return
                if (seen.lastOrNull() != mine.delivery) seen.add(mine.delivery)
            }
        }
        alice.manager.addObserver(watcher)
        alice.dispatch(AppAction.SendMessage(aliceChat, text))
        alice.await("sent mark") { s -> s.currentChat?.messages?.any { it.content == text && it.delivery == Delivery.Sent } }
        TestEnv.flushMain() // the state is set before its observers run, in the same main task
        alice.manager.removeObserver(watcher)
        assertEquals("delivery marks seen: $seen", listOf(Delivery.Pending, Delivery.Sent), seen.toList())
        val received = bob.await("alice's message") { s -> s.currentChat?.messages?.firstOrNull { it.content == text } }
        assertTrue(!received.isMine)

        val reply = "hello from Kotlin, bob"
        bob.dispatch(AppAction.SendMessage(bobChat, reply))
        bob.await("bob's sent mark") { s -> s.currentChat?.messages?.any { it.content == reply && it.delivery == Delivery.Sent } }
        alice.await("bob's message") { s -> s.currentChat?.messages?.any { it.content == reply && !it.isMine } }
        alice.await("a row for the chat with bob's message") { s ->
            s.chatList.firstOrNull { it.chatId == aliceChat }?.lastMessagePreview?.contains("bob")
        }
        assertEquals(0, alice.manager.resyncCount.get())
        assertEquals(0, bob.manager.resyncCount.get())
    }

    @Test
    fun c_aFileIsSentUploadedAndDownloaded() {
        val bytes = ByteArray(3000) { (it % 251).toByte() }
        alice.dispatch(AppAction.SendAttachment.of(aliceChat, bytes, "notes.bin", "application/octet-stream", "a file"))
        val mine = alice.await("the file uploaded and sent") { s ->
            s.currentChat?.messages?.firstOrNull { m ->
                m.isMine && m.attachments.any { it.filename == "notes.bin" } && m.delivery == Delivery.Sent
            }
        }
        assertEquals(3000L, mine.attachments.single().size)
        val theirs = bob.await("the file's message") { s ->
            s.currentChat?.messages?.firstOrNull { m -> m.attachments.any { it.filename == "notes.bin" } }
        }
        val attachment = theirs.attachments.single()
        assertEquals("application/octet-stream", attachment.mimeType)
        if (attachment.state != "available") {
            assertTrue("state ${attachment.state}", attachment.canDownload)
            bob.dispatch(AppAction.DownloadAttachment(bobChat, theirs.id, attachment.index))
        }
        val done = bob.await("the file downloaded") { s ->
            s.currentChat?.messages?.firstOrNull { it.id == theirs.id }?.attachments?.firstOrNull()
                ?.takeIf { it.state == "available" || it.state == "failed" }
        }
        assertEquals("download: ${done.reason}", "available", done.state)
    }
}
