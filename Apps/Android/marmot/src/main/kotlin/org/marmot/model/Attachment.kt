package org.marmot.model

/**
 * A file or picture of a message. `state` is `uploading`, `upload_failed`, `remote`, `downloading`,
 * `available` or `failed`; the bytes never enter the state.
 */
data class Attachment(
    val index: Int = 0,
    val filename: String = "",
    val mimeType: String = "",
    val size: Long? = null,
    val width: Int? = null,
    val height: Int? = null,
    val isImage: Boolean = false,
    val state: String = "",
    val reason: String? = null,
    val progress: Int? = null,
    val stateText: String = "",
    val label: String = "",
    val canDownload: Boolean = false
)
