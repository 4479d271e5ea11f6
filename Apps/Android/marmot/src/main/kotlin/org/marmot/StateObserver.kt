package org.marmot

import org.marmot.model.AppState

/**
 * Receives the manager's state on the main executor, after each applied update or resync.
 *
 * Why an interface and no Flow: the seed keeps the manager free of coroutines (Debian's Kotlin has
 * no kotlinx.coroutines); a Compose host wraps it in `mutableStateOf` in two lines.
 */
interface StateObserver {
    /** The new whole state (immutable); called on the main executor. */
    fun onStateChanged(state: AppState)

    /** The nsec the user asked to export (`secretExported`), to show once; never store or log it. */
    fun onSecretExported(nsec: String) {}

    /** An update or state the models could not read (the manager resynced). */
    fun onContractError(error: Exception) {}
}
