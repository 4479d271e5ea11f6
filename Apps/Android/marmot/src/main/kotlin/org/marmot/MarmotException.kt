package org.marmot

/**
 * A call of the library that failed with a return code of `marmot.h`, with the library's own words.
 *
 * Why its own type: hosts show `marmot_error_message` (never a secret) and may act on the code
 * (e.g. [MarmotNative.ERR_INVALID_RELAY] from settings).
 */
class MarmotException(val code: Int, message: String) : RuntimeException(message)
