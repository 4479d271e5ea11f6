package org.marmot

/**
 * What [MarmotManager] needs of one app core: the four calls of `marmot.h` on a `marmot_app`.
 *
 * Why an interface: the manager's rev gate is tested against a scripted core, and the JVM tests wrap
 * the real one ([MarmotCore]) to record the update stream and count resyncs.
 */
interface CoreApi {
    /** The current AppState as JSON; null once the core is destroyed. */
    fun state(): String?

    /** Queues one action (contract JSON) and returns at once with 0 or a refusal code. */
    fun dispatch(actionJson: String): Int

    /** Registers the one listener; it runs on a library thread with each update's JSON. */
    fun setListener(listener: (String) -> Unit): Int

    /** Stops the core; the listener is not called after this returns. Idempotent. */
    fun destroy()
}
