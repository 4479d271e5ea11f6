package org.marmot.model

/**
 * A case of a tagged union of the contract: an object whose `"type"` names the case.
 *
 * Why a getter and not a field: Gson writes fields only, so the tag is written once, by [TaggedAdapter].
 */
interface Tagged {
    /** The contract's `type` tag of this case. */
    val type: String
}
