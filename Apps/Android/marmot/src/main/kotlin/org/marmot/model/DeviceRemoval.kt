package org.marmot.model

/**
 * What removing a device did in one chat (`devices.lastRemoval`). The key is `chatID` (capital D) as
 * the core writes it, unlike every other `chatId` of the contract.
 */
data class DeviceRemoval(
    val chatID: String = "",
    val isNotes: Boolean = false,
    val status: String = "",
    val reason: String? = null
)
