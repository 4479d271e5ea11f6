package org.marmot

import com.sun.jna.Library
import com.sun.jna.Native
import com.sun.jna.Pointer
import com.sun.jna.ptr.PointerByReference

/**
 * The JNA binding of every function of `marmot.h` (libMarmotFFI), one Kotlin method per C function.
 *
 * Why JNA and not a JNI shim: the same interface loads the library on the JVM (tests) and on Android
 * (JNA's AAR), with no C of our own to build per ABI. Strings passed in are UTF-8 (the library's
 * encoding, set in [load]); strings the library returns come back as [Pointer] so the caller can
 * read them and hand them to [marmot_string_free] ([MarmotCore] does both).
 */
@Suppress("FunctionName")
interface MarmotNative : Library {
    /** `uint32_t marmot_schema_version(void)`: the JSON contract version (1). */
    fun marmot_schema_version(): Int

    /** `marmot_app_create`: a core over [dataDir]; `relays` and `installationSecretHex` may be null. */
    fun marmot_app_create(
        dataDir: String,
        relays: String?,
        installationSecretHex: String?,
        outApp: PointerByReference
    ): Int

    /** `marmot_app_state`: the AppState JSON, owned by the caller (free with [marmot_string_free]). */
    fun marmot_app_state(app: Pointer): Pointer?

    /** `marmot_app_dispatch`: queues one action and returns at once (0 or a refusal code). */
    fun marmot_app_dispatch(app: Pointer, actionJson: String): Int

    /** `marmot_app_set_listener`: registers the one listener; 8 on a second call. */
    fun marmot_app_set_listener(app: Pointer, callback: MarmotUpdateCallback, context: Pointer?): Int

    /** `marmot_error_message`: a static description of a return code (not freed). */
    fun marmot_error_message(code: Int): String?

    /** `marmot_string_free`: frees a string returned by the library (null is ignored). */
    fun marmot_string_free(string: Pointer?)

    /** `marmot_app_destroy`: stops the core; the listener is not called after this returns. */
    fun marmot_app_destroy(app: Pointer)

    companion object {
        /** The return codes of `marmot.h`. */
        const val OK = 0
        const val ERR_NULL_ARGUMENT = 1
        const val ERR_INVALID_JSON = 2
        const val ERR_SCHEMA_VERSION = 3
        const val ERR_UNKNOWN_ACTION = 4
        const val ERR_INVALID_FIELD = 5
        const val ERR_INVALID_SECRET = 6
        const val ERR_STORAGE = 7
        const val ERR_LISTENER_SET = 8
        const val ERR_INVALID_RELAY = 9
        /** Not a code of the library: the Kotlin side refused the call because the core was destroyed. */
        const val ERR_DESTROYED = -1

        /** The contract version these bindings and models speak. */
        const val SCHEMA_VERSION = 1

        /**
         * Loads the library: a file path on the JVM, or `"MarmotFFI"` on Android (from `jniLibs`,
         * after the Swift runtime libraries it links).
         */
        fun load(nameOrPath: String = "MarmotFFI"): MarmotNative =
            Native.load(
                nameOrPath,
                MarmotNative::class.java,
                mapOf(Library.OPTION_STRING_ENCODING to "UTF-8")
            )
    }
}
