package org.marmot.tests

import org.marmot.CoreApi
import java.util.concurrent.atomic.AtomicInteger

/**
 * A [CoreApi] around the real core that records every update's JSON and counts `state()` calls.
 *
 * Why: the round-trip test decodes the recorded stream, the resync test feeds the manager an update
 * with a skipped rev through [inject] and checks that the manager re-read the state, and [onLibraryThread]
 * lets a test call back into the library from inside the native callback.
 */
class RecordingCore(private val delegate: CoreApi) : CoreApi {
    val stateCalls = AtomicInteger()

    /** Runs on the library's thread for each update, before the manager sees it. */
    @Volatile
    var onLibraryThread: ((String) -> Unit)? = null

    @Volatile
    private var listener: ((String) -> Unit)? = null

    override fun state(): String? {
        stateCalls.incrementAndGet()
        return delegate.state()?.also { TestEnv.snapshots.add(it) }
    }

    override fun dispatch(actionJson: String): Int = delegate.dispatch(actionJson)

    override fun setListener(listener: (String) -> Unit): Int {
        this.listener = listener
        return delegate.setListener { json ->
            TestEnv.recorded.add(json)
            onLibraryThread?.invoke(json)
            listener(json)
        }
    }

    override fun destroy() = delegate.destroy()

    /** Delivers [json] to the manager as if the library had sent it (a test hook). */
    fun inject(json: String) {
        listener?.invoke(json) ?: throw IllegalStateException("no listener registered")
    }

    /** The core's own state, read without going through the manager. */
    fun directState(): String? = delegate.state()
}
