package org.marmot.tests

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import org.marmot.MarmotNative
import org.marmot.StateObserver
import org.marmot.model.AppAction
import org.marmot.model.AppState
import org.marmot.model.Screen
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger

/**
 * Closing while updates flow: a thread keeps dispatching, the garbage collector runs (the native
 * callback must stay reachable), then `close()` returns promptly; nothing is observed after it.
 */
class CloseTest {
    @Test
    fun closeWhileUpdatesFlow() {
        repeat(3) { round ->
            val peer = Peer("close-$round").loggedIn()
            val observed = AtomicInteger()
            peer.manager.addObserver(object : StateObserver {
                override fun onStateChanged(state: AppState) {
                    observed.incrementAndGet()
                }
            })
            val stop = AtomicBoolean()
            val refusedAfterClose = AtomicInteger()
            val sender = Thread {
                var i = 0
                while (!stop.get()) {
                    val action = if (i++ % 2 == 0) AppAction.PushScreen(Screen.NewChat) else AppAction.UpdateScreenStack(emptyList())
                    if (peer.manager.dispatch(action) == MarmotNative.ERR_DESTROYED) refusedAfterClose.incrementAndGet()
                    if (i % 20 == 0) Thread.sleep(1) // keeps the core's queue short
                }
            }
            sender.start()
            peer.await("updates flowing") { observed.get() > 50 + round * 20 }
            System.gc()
            peer.await("updates still flowing after a collection") { observed.get() > 150 + round * 20 }

            val closer = Executors.newSingleThreadExecutor()
            val closing = closer.submit { peer.close() }
            closing.get(10, TimeUnit.SECONDS)
            closer.shutdown()
            Thread.sleep(50)
            TestEnv.flushMain()
            val atClose = observed.get()
            Thread.sleep(300)
            TestEnv.flushMain()
            assertEquals("no state observed after close", atClose, observed.get())
            assertEquals(MarmotNative.ERR_DESTROYED, peer.manager.dispatch(AppAction.ClearToast))
            assertEquals(null, peer.core.directState())
            stop.set(true)
            sender.join(5000)
            assertTrue(!sender.isAlive)
            assertTrue("dispatches after close were refused", refusedAfterClose.get() > 0)
        }
    }

    @Test
    fun closeFromTheMainExecutorWhileTheCoreIsBusy() {
        val peer = Peer("close-main")
        peer.dispatch(AppAction.CreateAccount)
        // Close on the main thread, as an Activity's onDestroy would, while the account is being made.
        TestEnv.main.submit { peer.close() }.get(10, TimeUnit.SECONDS)
        assertEquals(MarmotNative.ERR_DESTROYED, peer.manager.dispatch(AppAction.Logout))
    }
}
