package org.marmot.tests

import org.marmot.CoreApi
import org.marmot.MarmotNative
import java.util.Collections

/**
 * A scripted [CoreApi]: its state is a JSON text the test sets, updates are what the test [emit]s.
 *
 * Why: the rev gate (apply, stale, gap, side effects) is checked without timing of a real core.
 */
class FakeCore(@Volatile var stateJson: String) : CoreApi {
    val calls: MutableList<String> = Collections.synchronizedList(mutableListOf())
    val dispatched: MutableList<String> = Collections.synchronizedList(mutableListOf())
    @Volatile var dispatchCode = MarmotNative.OK
    @Volatile var destroyed = false
    private var listener: ((String) -> Unit)? = null

    override fun state(): String? {
        calls.add("state")
        return if (destroyed) null else stateJson
    }

    override fun dispatch(actionJson: String): Int {
        calls.add("dispatch")
        if (destroyed) return MarmotNative.ERR_DESTROYED
        dispatched.add(actionJson)
        return dispatchCode
    }

    override fun setListener(listener: (String) -> Unit): Int {
        calls.add("setListener")
        if (this.listener != null) return MarmotNative.ERR_LISTENER_SET
        this.listener = listener
        return MarmotNative.OK
    }

    override fun destroy() {
        calls.add("destroy")
        destroyed = true
    }

    /** Sends [json] as the library's thread would. */
    fun emit(json: String) {
        if (!destroyed) listener?.invoke(json)
    }

    companion object {
        /** A minimal AppState JSON at [rev] with [toast]. */
        fun state(rev: Long, toast: String? = null): String =
            """{"schemaVersion":1,"rev":$rev,"toast":${toast?.let { "\"$it\"" } ?: "null"},""" +
                """"router":{"defaultScreen":{"type":"login"},"screenStack":[]},"auth":{"type":"loggedOut"}}"""

        /** A toastChanged update at [rev]. */
        fun toast(rev: Long, toast: String): String =
            """{"schemaVersion":1,"type":"toastChanged","rev":$rev,"toast":"$toast"}"""
    }
}
