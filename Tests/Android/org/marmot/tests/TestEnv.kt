package org.marmot.tests

import org.marmot.MarmotNative
import java.io.File
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger

/**
 * What the JVM tests share: the loaded library, the relay, a scratch folder, the "main" executor and
 * every update JSON the native sessions produced (decoded again by [StreamRoundTripTest]).
 *
 * Why system properties: scripts/android-test.sh builds the library, starts `marmot relay` and passes
 * `marmot.lib`, `marmot.relay`, `marmot.scratch` and `marmot.repo`.
 */
object TestEnv {
    val native: MarmotNative by lazy { MarmotNative.load(property("marmot.lib")) }
    val relay: String get() = property("marmot.relay")
    val repo: File get() = File(property("marmot.repo"))
    private val scratch: File by lazy { File(property("marmot.scratch")).also { it.mkdirs() } }
    private val counter = AtomicInteger()

    /** Every update JSON the native cores sent (all sessions of the run). */
    val recorded = ConcurrentLinkedQueue<String>()

    /** Every state JSON read from a native core. */
    val snapshots = ConcurrentLinkedQueue<String>()

    /** The host's main thread: one thread, as Android's main looper. */
    val main: ExecutorService = Executors.newSingleThreadExecutor { runnable ->
        Thread(runnable, MAIN_THREAD).also { it.isDaemon = true }
    }

    const val MAIN_THREAD = "marmot-test-main"

    /** A new empty folder under the scratch folder. */
    fun newDir(name: String): File = File(scratch, "$name-${counter.incrementAndGet()}").also { it.mkdirs() }

    /** Waits until every task queued on [main] so far has run. */
    fun flushMain() {
        main.submit {}.get()
    }

    private fun property(name: String): String =
        System.getProperty(name) ?: throw IllegalStateException("system property $name is not set (run scripts/android-test.sh)")
}
