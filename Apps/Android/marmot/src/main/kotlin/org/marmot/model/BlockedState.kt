package org.marmot.model

/** The people this account blocked, and whether the list has been read. */
data class BlockedState(val people: List<BlockedPerson> = emptyList(), val loaded: Boolean = false)
