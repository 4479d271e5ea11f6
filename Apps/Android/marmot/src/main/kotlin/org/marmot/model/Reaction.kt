package org.marmot.model

/** One emoji on a message with who sent it; `label` is the core's `"👍 2"`. */
data class Reaction(
    val emoji: String = "",
    val count: Int = 0,
    val senderPubkeys: List<String> = emptyList(),
    val includesMe: Boolean = false,
    val label: String = ""
)
