package org.marmot

import org.marmot.model.AppAction
import org.marmot.model.AppState
import org.marmot.model.AppUpdate
import org.marmot.model.ContractJson
import java.io.Closeable
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executor
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.atomic.AtomicLong

/**
 * The thin native manager of the seed: one observable [state], kept current from the core's updates.
 *
 * Why it is this small: the core decides everything; the manager only (1) handles side effects first
 * (the nsec to [SecretStore]), (2) hops each update to the injected main executor, (3) applies the
 * next rev, drops stale ones and on a gap re-reads the whole state from [CoreApi.state], and
 * (4) dispatches actions, which returns at once. The listener is registered before the first snapshot
 * is read, so no update is lost; the core (and with it the native callback object) is held in a
 * field for the manager's life. [close] destroys the core while updates may still flow.
 */
class MarmotManager(
    private val core: CoreApi,
    private val secrets: SecretStore,
    private val mainExecutor: Executor
) : Closeable {
    private val lock = Any()
    private val observers = CopyOnWriteArrayList<StateObserver>()

    @Volatile
    private var closed = false

    /** The rev of [state]; read and written under [lock] (the main executor and the constructor). */
    private var lastRev: Long

    /** The current state; replaced (never mutated) on the main executor. */
    @Volatile
    var state: AppState
        private set

    /** Updates applied in order, dropped as stale, and resyncs after a gap (diagnostics and tests). */
    val appliedCount = AtomicLong()
    val staleCount = AtomicLong()
    val resyncCount = AtomicLong()

    init {
        val initial: AppState
        synchronized(lock) {
            val code = core.setListener { json -> onCoreUpdate(json) }
            if (code != MarmotNative.OK) throw MarmotException(code, "the core's listener could not be set")
            initial = ContractJson.decodeState(core.state() ?: throw MarmotException(MarmotNative.ERR_DESTROYED, "no state"))
            lastRev = initial.rev
        }
        state = initial
        secrets.loadNsec()?.let { dispatch(AppAction.RestoreSession(it)) }
    }

    /** Adds [observer]; it gets every later state on the main executor. */
    fun addObserver(observer: StateObserver) {
        observers.add(observer)
    }

    /** Removes [observer]. */
    fun removeObserver(observer: StateObserver) {
        observers.remove(observer)
    }

    /**
     * Queues [action] in the core and returns at once: 0, a refusal code of `marmot.h` (the action
     * was not dispatched), or [MarmotNative.ERR_DESTROYED] after [close]. Results come back as updates.
     */
    fun dispatch(action: AppAction): Int {
        if (closed) return MarmotNative.ERR_DESTROYED
        return core.dispatch(action.toJson())
    }

    /** The app came to the foreground: tell the core and re-read the state (the host's `onResume`). */
    fun foregrounded() {
        dispatch(AppAction.Foregrounded)
        post { resync() }
    }

    /**
     * Destroys the core while updates may still flow: later dispatches are refused, queued updates are
     * dropped. Called on the main executor (an Activity's onDestroy), no observer is called after it
     * returns; from another thread, only a notification already running on the main executor ends.
     */
    override fun close() {
        if (closed) return
        closed = true
        core.destroy()
        observers.clear()
    }

    /** A library thread: the JSON is already copied. Side effects now, the rest on the main executor. */
    private fun onCoreUpdate(json: String) {
        if (closed) return
        val update = try {
            ContractJson.decodeUpdate(json)
        } catch (error: Exception) {
            post {
                observers.forEach { it.onContractError(error) }
                resync()
            }
            return
        }
        handleSideEffect(update)
        post { receive(update) }
    }

    /** Rule 1 of the rev rule: whatever the rev, before the state changes. */
    private fun handleSideEffect(update: AppUpdate) {
        when (update) {
            is AppUpdate.AccountCreated -> secrets.saveNsec(update.nsec)
            is AppUpdate.SecretAccepted -> secrets.saveNsec(update.nsec)
            is AppUpdate.SecretForgotten -> secrets.deleteNsec()
            is AppUpdate.SecretExported -> post { observers.forEach { it.onSecretExported(update.nsec) } }
            else -> Unit
        }
    }

    /** Rules 2 to 4 on the main executor: stale dropped, next applied, a gap resynced. */
    private fun receive(update: AppUpdate) {
        if (closed) return
        val next: AppState
        synchronized(lock) {
            when {
                update.rev <= lastRev -> {
                    staleCount.incrementAndGet()
                    return
                }
                update.rev == lastRev + 1 -> {
                    next = state.applying(update)
                    lastRev = update.rev
                    state = next
                    appliedCount.incrementAndGet()
                }
                else -> {
                    next = readState() ?: return
                }
            }
        }
        publish(next)
    }

    private fun resync() {
        if (closed) return
        val next = synchronized(lock) { readState() } ?: return
        publish(next)
    }

    /** Replaces everything from the core's snapshot (under [lock]); null once the core is gone. */
    private fun readState(): AppState? {
        val json = core.state() ?: return null
        val snapshot = try {
            ContractJson.decodeState(json)
        } catch (error: Exception) {
            observers.forEach { it.onContractError(error) }
            return null
        }
        resyncCount.incrementAndGet()
        lastRev = snapshot.rev
        state = snapshot
        return snapshot
    }

    private fun publish(next: AppState) {
        if (closed) return
        observers.forEach { it.onStateChanged(next) }
    }

    private fun post(work: () -> Unit) {
        if (closed) return
        try {
            mainExecutor.execute { work() }
        } catch (rejected: RejectedExecutionException) {
            // The host's main loop is shutting down: nothing left to render.
        }
    }

    companion object {
        /**
         * Opens a core over [dataDir] with [relays] and the installation secret of [secrets], and its
         * manager; if [secrets] holds an nsec, the session is restored (`restoreSession`).
         */
        fun open(
            native: MarmotNative,
            dataDir: String,
            relays: List<String>,
            secrets: SecretStore,
            mainExecutor: Executor
        ): MarmotManager {
            val core = MarmotCore.create(native, dataDir, relays, secrets.installationSecretHex())
            return try {
                MarmotManager(core, secrets, mainExecutor)
            } catch (error: RuntimeException) {
                core.destroy()
                throw error
            }
        }
    }
}
