package org.marmot.model

/**
 * The last operation's result (`lastOutcome`): `operation` and `code` are the contract's snake_case
 * names; `messageId` names the message a `send_message` outcome is about.
 */
data class Outcome(
    val operation: String = "",
    val code: String = "",
    val message: String = "",
    val sequence: Long = 0,
    val messageId: String? = null
)
