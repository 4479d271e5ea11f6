package org.marmot.tests

import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import org.marmot.model.AppAction
import org.marmot.model.AuthState

/** Accounts through the manager: created (nsec kept by the host), imported by nsec, restored at launch, logged out. */
class AccountTest {
    @Test
    fun anAccountIsCreatedImportedElsewhereAndRestoredAtLaunch() {
        val alice = Peer("alice-account")
        val npub = alice.createAccount()
        assertTrue(npub.startsWith("npub1"))
        val nsec = alice.secrets.loadNsec()!!

        // Import: another installation logs in with the nsec; the core hands it back to keep (secretAccepted).
        Peer("alice-phone").use { phone ->
            assertNull(phone.secrets.loadNsec())
            phone.dispatch(AppAction.Login(nsec))
            phone.await("login by nsec") { s -> s.npub == npub }
            phone.await("nsec kept") { phone.secrets.loadNsec() == nsec }
        }

        // Restore: the same folder and secrets opened again; the manager dispatches restoreSession itself.
        alice.close()
        Peer("alice-again", alice.folder, alice.secrets).use { again ->
            again.await("session restored") { s -> s.npub == npub }
            // Logout: the core tells the host to forget the nsec (secretForgotten).
            again.dispatch(AppAction.Logout)
            again.await("logged out") { s -> s.auth == AuthState.LoggedOut }
            again.await("nsec forgotten") { again.secrets.loadNsec() == null }
            assertEquals(0, again.manager.resyncCount.get())
        }
    }

    @Test
    fun aWrongNsecEndsInAnOutcomeAndKeepsNothing() {
        Peer("mallory").use { peer ->
            peer.dispatch(AppAction.Login("nsec1notavalidkey"))
            val outcome = peer.await("login outcome") { s -> s.lastOutcome?.takeIf { it.operation == "login" } }
            assertEquals("invalid_nsec", outcome.code)
            assertNull(peer.secrets.loadNsec())
            assertEquals(AuthState.LoggedOut, peer.state.auth)
        }
    }
}
