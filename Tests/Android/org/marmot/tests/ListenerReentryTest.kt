package org.marmot.tests

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import org.marmot.StateObserver
import org.marmot.model.AppAction
import org.marmot.model.AppState
import org.marmot.model.ContractJson
import org.marmot.model.Screen
import java.util.concurrent.atomic.AtomicInteger

/**
 * Calling back into the library from inside an update: on the library's own thread (inside the
 * native callback, as `marmot.h` allows) and from an observer on the main executor.
 */
class ListenerReentryTest {
    @Test
    fun theNativeCallbackDispatchesAndReadsTheState() {
        Peer("reentry-native").loggedIn().use { peer ->
            val chained = AtomicInteger()
            peer.core.onLibraryThread = { json ->
                if (json.contains("\"type\":\"routerChanged\"") && chained.get() < 30) {
                    chained.incrementAndGet()
                    assertTrue(peer.core.directState()!!.contains("\"schemaVersion\":1"))
                    val next = if (chained.get() % 2 == 1) AppAction.UpdateScreenStack(emptyList()) else AppAction.PushScreen(Screen.NewChat)
                    assertEquals(0, peer.core.dispatch(next.toJson()))
                }
            }
            val start = peer.state.rev
            peer.dispatch(AppAction.PushScreen(Screen.NewChat))
            peer.await("30 chained dispatches") { s -> chained.get() >= 30 && s.rev >= start + 31 }
            peer.core.onLibraryThread = null
            assertEquals(0, peer.manager.resyncCount.get())
            val direct = ContractJson.decodeState(peer.core.directState()!!)
            peer.await("the manager at the core's rev") { s -> s.rev == direct.rev }
        }
    }

    @Test
    fun anObserverDispatchesFromTheMainExecutor() {
        Peer("reentry-main").loggedIn().use { peer ->
            val rounds = AtomicInteger()
            peer.manager.addObserver(object : StateObserver {
                override fun onStateChanged(state: AppState) {
                    if (rounds.get() >= 20) return
                    if (state.topScreen == Screen.NewChat) {
                        rounds.incrementAndGet()
                        peer.manager.dispatch(AppAction.UpdateScreenStack(emptyList()))
                    } else if (state.router.screenStack.isEmpty()) {
                        peer.manager.dispatch(AppAction.PushScreen(Screen.NewChat))
                    }
                }
            })
            peer.dispatch(AppAction.PushScreen(Screen.NewChat))
            peer.await("20 rounds") { s -> rounds.get() >= 20 && s.router.screenStack.isEmpty() }
            assertEquals(0, peer.manager.resyncCount.get())
        }
    }
}
