package org.marmot

import com.sun.jna.Pointer
import com.sun.jna.ptr.PointerByReference

/**
 * One `marmot_app` behind JNA: strings read as UTF-8 and freed, the listener kept alive, destroy safe.
 *
 * Why this layer: JNA holds only a weak reference to a callback object, so the object is kept in
 * [callback] for the core's whole life (a collected callback crashes the next update). Destroy may
 * race with calls from other threads (the UI dispatching while the app closes): calls in flight are
 * waited for, later ones are refused with [MarmotNative.ERR_DESTROYED], and the library's own
 * `marmot_app_destroy` then waits for a callback in progress.
 */
class MarmotCore private constructor(private val native: MarmotNative, handle: Pointer) : CoreApi {
    private val lock = Object()
    private var app: Pointer? = handle
    private var inFlight = 0

    /** The registered native callback: a strong reference for the core's life (see the class note). */
    @Volatile
    private var callback: MarmotUpdateCallback? = null

    override fun state(): String? = withApp<String?>(null) { app ->
        val raw = native.marmot_app_state(app) ?: return@withApp null
        try {
            raw.getString(0, "UTF-8")
        } finally {
            native.marmot_string_free(raw)
        }
    }

    override fun dispatch(actionJson: String): Int =
        withApp(MarmotNative.ERR_DESTROYED) { app -> native.marmot_app_dispatch(app, actionJson) }

    override fun setListener(listener: (String) -> Unit): Int {
        val candidate = object : MarmotUpdateCallback {
            override fun invoke(updateJson: Pointer?, context: Pointer?) {
                val text = updateJson?.getString(0, "UTF-8") ?: return // copied during the call
                try {
                    listener(text)
                } catch (error: Throwable) {
                    // An exception must not unwind into the library's thread.
                    Thread.currentThread().uncaughtExceptionHandler?.uncaughtException(Thread.currentThread(), error)
                }
            }
        }
        val code = withApp(MarmotNative.ERR_DESTROYED) { app ->
            native.marmot_app_set_listener(app, candidate, null)
        }
        if (code == MarmotNative.OK) callback = candidate
        return code
    }

    override fun destroy() {
        val handle: Pointer
        synchronized(lock) {
            handle = app ?: return
            app = null
            while (inFlight > 0) lock.wait()
        }
        native.marmot_app_destroy(handle)
    }

    /** The library's description of [code] (static text, never a secret). */
    fun errorMessage(code: Int): String = describe(native, code)

    private inline fun <T> withApp(refused: T, body: (Pointer) -> T): T {
        val handle = synchronized(lock) {
            val current = app ?: return refused
            inFlight += 1
            current
        }
        try {
            return body(handle)
        } finally {
            synchronized(lock) {
                inFlight -= 1
                if (inFlight == 0) lock.notifyAll()
            }
        }
    }

    companion object {
        /**
         * Creates a core over [dataDir] with [relays] (ws:// or wss:// URLs) and the host's
         * installation secret (64 hex digits; null lets the library keep it in a file, tests only).
         */
        fun create(
            native: MarmotNative,
            dataDir: String,
            relays: List<String>,
            installationSecretHex: String?
        ): MarmotCore {
            val out = PointerByReference()
            val code = native.marmot_app_create(dataDir, relays.joinToString(","), installationSecretHex, out)
            if (code != MarmotNative.OK) throw MarmotException(code, describe(native, code))
            val handle = out.value ?: throw MarmotException(MarmotNative.ERR_NULL_ARGUMENT, "no app returned")
            return MarmotCore(native, handle)
        }

        private fun describe(native: MarmotNative, code: Int): String =
            if (code == MarmotNative.ERR_DESTROYED) "the core was destroyed"
            else native.marmot_error_message(code) ?: "error $code"
    }
}
