package org.marmot.model

/** A person this account blocked (kept on this device only). */
data class BlockedPerson(
    val npub: String = "",
    val pubkey: String = "",
    val displayName: String = "",
    val blockedAt: Long = 0,
    val blockedTimeDisplay: String = ""
)
