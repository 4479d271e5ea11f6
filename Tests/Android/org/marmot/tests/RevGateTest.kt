package org.marmot.tests

import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import org.marmot.MarmotManager
import org.marmot.MarmotNative
import org.marmot.StateObserver
import org.marmot.model.AppAction
import org.marmot.model.AppState
import org.marmot.model.Screen
import java.io.File
import java.util.Collections
import java.util.concurrent.atomic.AtomicReference

/** The manager's rev rule over a scripted core: apply, stale, gap, side effects, threads, launch, close. */
class RevGateTest {
    private fun secrets() = FileSecretStore(File(TestEnv.newDir("fake"), "secrets"))

    private fun manager(core: FakeCore, store: FileSecretStore = secrets()) = MarmotManager(core, store, TestEnv.main)

    @Test
    fun theNextRevIsAppliedAndStaleOnesAreDropped() {
        val core = FakeCore(FakeCore.state(5))
        val manager = manager(core)
        core.emit(FakeCore.toast(6, "six"))
        core.emit(FakeCore.toast(6, "again six"))
        core.emit(FakeCore.toast(3, "three"))
        TestEnv.flushMain()
        assertEquals(6, manager.state.rev)
        assertEquals("six", manager.state.toast)
        assertEquals(1, manager.appliedCount.get())
        assertEquals(2, manager.staleCount.get())
        assertEquals(0, manager.resyncCount.get())
    }

    @Test
    fun aGapReadsTheWholeStateAgain() {
        val core = FakeCore(FakeCore.state(5))
        val manager = manager(core)
        val readsBefore = core.calls.count { it == "state" }
        core.stateJson = FakeCore.state(12, "from the core")
        core.emit(FakeCore.toast(9, "skipped ahead"))
        TestEnv.flushMain()
        assertEquals(readsBefore + 1, core.calls.count { it == "state" })
        assertEquals(12, manager.state.rev)
        assertEquals("from the core", manager.state.toast)
        assertEquals(1, manager.resyncCount.get())
        core.emit(FakeCore.toast(13, "next"))
        TestEnv.flushMain()
        assertEquals("next", manager.state.toast)
    }

    @Test
    fun sideEffectsAreHandledWhateverTheirRev() {
        val core = FakeCore(FakeCore.state(10))
        val store = secrets()
        val manager = manager(core, store)
        val exported = AtomicReference<String>()
        manager.addObserver(object : StateObserver {
            override fun onStateChanged(state: AppState) {}
            override fun onSecretExported(nsec: String) = exported.set(nsec)
        })
        core.emit("""{"schemaVersion":1,"type":"accountCreated","rev":4,"nsec":"nsec1created","npub":"npub1x","pubkey":"ab"}""")
        TestEnv.flushMain()
        assertEquals("nsec1created", store.loadNsec())
        core.emit("""{"schemaVersion":1,"type":"secretForgotten","rev":5}""")
        TestEnv.flushMain()
        assertNull(store.loadNsec())
        core.emit("""{"schemaVersion":1,"type":"secretAccepted","rev":11,"nsec":"nsec1login","npub":"npub1y"}""")
        core.emit("""{"schemaVersion":1,"type":"secretExported","rev":12,"nsec":"nsec1shown"}""")
        TestEnv.flushMain()
        assertEquals("nsec1login", store.loadNsec())
        assertEquals("nsec1shown", exported.get())
        assertEquals("side effects take a rev and change nothing else", 12, manager.state.rev)
        assertEquals(2, manager.staleCount.get())
    }

    @Test
    fun unknownUpdatesAndFieldsAdvanceTheRev() {
        val core = FakeCore(FakeCore.state(1))
        val manager = manager(core)
        core.emit("""{"schemaVersion":1,"type":"somethingNew","rev":2,"slice":{"a":[1,2]}}""")
        core.emit("""{"schemaVersion":1,"type":"toastChanged","rev":3,"toast":"hi","newField":true}""")
        TestEnv.flushMain()
        assertEquals(3, manager.state.rev)
        assertEquals("hi", manager.state.toast)
        assertEquals(0, manager.resyncCount.get())
    }

    @Test
    fun fullStateAndSlicesReplaceWhatTheyCarry() {
        val core = FakeCore(FakeCore.state(1, "old"))
        val manager = manager(core)
        core.emit("""{"schemaVersion":1,"type":"routerChanged","rev":2,"router":{"defaultScreen":{"type":"chatList"},"screenStack":[{"type":"chat","chatId":"c1"}]}}""")
        TestEnv.flushMain()
        assertEquals(Screen.Chat("c1"), manager.state.topScreen)
        assertEquals("old", manager.state.toast)
        core.emit("""{"schemaVersion":1,"type":"fullState","rev":3,"state":${FakeCore.state(3, "full")}}""")
        TestEnv.flushMain()
        assertEquals("full", manager.state.toast)
        assertEquals(Screen.Login, manager.state.topScreen)
    }

    @Test
    fun updatesReachObserversOnTheMainExecutorOnly() {
        val core = FakeCore(FakeCore.state(1))
        val manager = manager(core)
        val threads = Collections.synchronizedList(mutableListOf<String>())
        manager.addObserver(object : StateObserver {
            override fun onStateChanged(state: AppState) {
                threads.add(Thread.currentThread().name)
            }
        })
        val library = Thread({ for (rev in 2L..21L) core.emit(FakeCore.toast(rev, "t$rev")) }, "library")
        library.start()
        library.join()
        TestEnv.flushMain()
        assertEquals(20, threads.size)
        assertTrue(threads.all { it == TestEnv.MAIN_THREAD })
        assertEquals(21, manager.state.rev)
    }

    @Test
    fun theListenerIsSetBeforeTheSnapshotAndTheSessionRestored() {
        val core = FakeCore(FakeCore.state(1))
        val store = secrets()
        store.saveNsec("nsec1kept")
        manager(core, store)
        assertEquals(listOf("setListener", "state", "dispatch"), core.calls.toList())
        assertTrue(core.dispatched.single().contains("\"type\":\"restoreSession\""))
        assertTrue(core.dispatched.single().contains("\"nsec\":\"nsec1kept\""))
    }

    @Test
    fun dispatchReturnsTheCoreCodeAndIsRefusedAfterClose() {
        val core = FakeCore(FakeCore.state(1))
        val manager = manager(core)
        core.dispatchCode = MarmotNative.ERR_INVALID_FIELD
        assertEquals(MarmotNative.ERR_INVALID_FIELD, manager.dispatch(AppAction.OpenChat("c")))
        manager.close()
        assertTrue(core.destroyed)
        assertEquals(MarmotNative.ERR_DESTROYED, manager.dispatch(AppAction.ClearToast))
        manager.close() // idempotent
        assertEquals(1, core.calls.count { it == "destroy" })
    }

    @Test
    fun unreadableJsonResyncs() {
        val core = FakeCore(FakeCore.state(1))
        val manager = manager(core)
        val errors = Collections.synchronizedList(mutableListOf<Exception>())
        manager.addObserver(object : StateObserver {
            override fun onStateChanged(state: AppState) {}
            override fun onContractError(error: Exception) {
                errors.add(error)
            }
        })
        core.stateJson = FakeCore.state(7)
        core.emit("not json")
        core.emit("""{"schemaVersion":2,"type":"toastChanged","rev":8,"toast":"x"}""")
        TestEnv.flushMain()
        assertEquals(2, errors.size)
        assertEquals(7, manager.state.rev)
        assertNull(manager.state.toast)
    }
}
