package org.marmot.model

/** The last `search` action's results, newest first (`searching` while the index is built). */
data class SearchState(
    val query: String = "",
    val chatId: String? = null,
    val results: List<SearchHit> = emptyList(),
    val searching: Boolean = false,
    val error: String? = null
)
