package org.marmot.tests

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.marmot.MarmotCore
import org.marmot.MarmotManager
import org.marmot.StateObserver
import org.marmot.model.AppAction
import org.marmot.model.AppState
import org.marmot.model.AuthState
import java.io.Closeable
import java.io.File

/**
 * One user of the JVM tests: a real core over [TestEnv.relay] behind a [RecordingCore], its
 * [MarmotManager] on the shared main executor, and a file-backed secret store.
 *
 * Why [await] polls the manager's state and not the core: what is checked is what a renderer sees.
 */
class Peer(
    val name: String,
    val folder: File = TestEnv.newDir(name),
    val secrets: FileSecretStore = FileSecretStore(File(folder, "secrets"))
) : Closeable {
    val core = RecordingCore(
        MarmotCore.create(TestEnv.native, File(folder, "data").path, listOf(TestEnv.relay), secrets.installationSecretHex())
    )
    val manager = MarmotManager(core, secrets, TestEnv.main)
    private val monitor = Object()

    init {
        manager.addObserver(object : StateObserver {
            override fun onStateChanged(state: AppState) = synchronized(monitor) { monitor.notifyAll() }
        })
    }

    val state: AppState get() = manager.state

    /** Dispatches [action] and checks the core took it. */
    fun dispatch(action: AppAction) {
        assertEquals("$name: ${action.type} refused", 0, manager.dispatch(action))
    }

    /** Waits until [pick] returns a value that is neither null nor false, and returns it. */
    fun <T> await(what: String, timeoutMillis: Long = 30_000, pick: (AppState) -> T?): T {
        val deadline = System.currentTimeMillis() + timeoutMillis
        while (true) {
            val value = pick(manager.state)
            if (value != null && value != false) return value
            val left = deadline - System.currentTimeMillis()
            if (left <= 0) {
                val s = manager.state
                fail("$name: timed out waiting for $what (rev ${s.rev}, toast ${s.toast}, outcome ${s.lastOutcome})")
            }
            synchronized(monitor) { monitor.wait(minOf(left, 100)) }
        }
    }

    /** Creates an account and waits for it to be logged in with its key package published; its npub. */
    fun createAccount(): String {
        dispatch(AppAction.CreateAccount)
        val npub = await("login and key package") { s ->
            if (s.auth is AuthState.LoggedIn && s.network.keyPackagePublished == true) s.npub else null
        }
        assertTrue("$name: the nsec was kept by the host", secrets.loadNsec()?.startsWith("nsec1") == true)
        return npub
    }

    /** This peer with a new account (the router and most slices change only when logged in). */
    fun loggedIn(): Peer {
        createAccount()
        return this
    }

    override fun close() = manager.close()
}
