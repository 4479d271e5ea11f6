package org.marmot.model

/**
 * JSON from the core that this host cannot read: not an object, a missing tag, or another schema version.
 *
 * Why it names no value: the JSON may carry an nsec (`accountCreated`), so only the reason is kept.
 */
class ContractException(message: String, cause: Throwable? = null) : RuntimeException(message, cause)
