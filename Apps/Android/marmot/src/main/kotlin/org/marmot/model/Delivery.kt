package org.marmot.model

/** A message's delivery mark: pending, sent, or failed with the core's reason (shown as is). */
sealed class Delivery : Tagged {
    object Pending : Delivery() {
        override val type get() = "pending"
        override fun toString() = "Pending"
    }
    object Sent : Delivery() {
        override val type get() = "sent"
        override fun toString() = "Sent"
    }
    data class Failed(val reason: String = "") : Delivery() { override val type get() = "failed" }
    data class Unknown(override val type: String = "") : Delivery()

    companion object {
        val adapter = TaggedAdapter<Delivery>(
            mapOf("failed" to Failed::class.java), listOf(Pending, Sent)
        ) { tag, _ -> Unknown(tag) }
    }
}
