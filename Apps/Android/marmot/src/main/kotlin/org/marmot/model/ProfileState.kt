package org.marmot.model

/** This account's name (`null` until set or found) and whether a save or the look-up is under way. */
data class ProfileState(
    val name: String? = null,
    val saving: Boolean = false,
    val lookedUp: Boolean = false,
    val statusText: String? = null
)
