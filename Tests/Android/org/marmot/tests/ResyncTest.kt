package org.marmot.tests

import org.junit.Assert.assertEquals
import org.junit.Assert.assertNotEquals
import org.junit.Test
import org.marmot.model.AppAction
import org.marmot.model.ContractJson
import org.marmot.model.Screen

/** A forced gap over the real core: an update with a skipped rev makes the manager re-read `state()`. */
class ResyncTest {
    @Test
    fun aSkippedRevResyncsFromTheCore() {
        Peer("gap").loggedIn().use { peer ->
            peer.dispatch(AppAction.PushScreen(Screen.NewChat))
            peer.await("the push applied") { s -> s.topScreen == Screen.NewChat }
            TestEnv.flushMain()
            val readsBefore = peer.core.stateCalls.get()
            val rev = peer.state.rev
            peer.core.inject("""{"schemaVersion":1,"type":"toastChanged","rev":${rev + 5},"toast":"forged"}""")
            TestEnv.flushMain()
            assertEquals("state() read once for the gap", readsBefore + 1, peer.core.stateCalls.get())
            assertEquals(1, peer.manager.resyncCount.get())
            val core = ContractJson.decodeState(peer.core.directState()!!)
            assertEquals(core.rev, peer.state.rev)
            assertNotEquals("forged", peer.state.toast)

            // A stale one is dropped without a read; the core's next update applies in order.
            peer.core.inject("""{"schemaVersion":1,"type":"toastChanged","rev":$rev,"toast":"stale"}""")
            TestEnv.flushMain()
            assertEquals(readsBefore + 1, peer.core.stateCalls.get())
            peer.dispatch(AppAction.UpdateScreenStack(emptyList()))
            peer.await("the pop applied") { s -> s.router.screenStack.isEmpty() }
            assertEquals(1, peer.manager.resyncCount.get())
            assertNotEquals("stale", peer.state.toast)
        }
    }
}
