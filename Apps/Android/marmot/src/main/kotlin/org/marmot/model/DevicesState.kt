package org.marmot.model

/** This account's devices as last read (`loadDevices` when the devices screen shows). */
data class DevicesState(
    val list: List<Device> = emptyList(),
    val loaded: Boolean = false,
    val loading: Boolean = false,
    val historyNotice: String = "",
    val lastRemoval: List<DeviceRemoval> = emptyList()
)
