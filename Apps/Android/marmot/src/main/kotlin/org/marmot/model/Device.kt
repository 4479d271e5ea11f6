package org.marmot.model

/** One device of this account (`devices.list`). */
data class Device(
    val id: String = "",
    val name: String = "",
    val addedAt: Long? = null,
    val addedDisplay: String = "",
    val isThisDevice: Boolean = false,
    val isLinked: Boolean = false,
    val statusLabel: String = ""
)
