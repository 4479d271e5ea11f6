package org.marmot

import com.sun.jna.Callback
import com.sun.jna.Pointer

/**
 * `marmot_update_callback`: receives one AppUpdate as NUL-terminated UTF-8, valid only during the call.
 *
 * Why a Pointer and not a String: the text is read explicitly as UTF-8 whatever the JVM's default
 * charset, and copied before the call returns.
 */
interface MarmotUpdateCallback : Callback {
    /** Called on a thread of the library, one call at a time, in rev order. */
    fun invoke(updateJson: Pointer?, context: Pointer?)
}
