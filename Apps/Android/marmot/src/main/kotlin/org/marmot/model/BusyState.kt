package org.marmot.model

/** What the core is busy with (spinners); `answeringInvites` and `finishingJoins` hold invite and chat ids. */
data class BusyState(
    val creatingAccount: Boolean = false,
    val loggingIn: Boolean = false,
    val creatingChat: Boolean = false,
    val restoringSession: Boolean = false,
    val answeringInvites: List<String> = emptyList(),
    val finishingJoins: List<String> = emptyList()
)
