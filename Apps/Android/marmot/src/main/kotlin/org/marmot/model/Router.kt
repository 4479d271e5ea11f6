package org.marmot.model

/** The navigation: the default screen and the stack above it; the top is the last of the stack, else the default. */
data class Router(
    val defaultScreen: Screen = Screen.Login,
    val screenStack: List<Screen> = emptyList()
) {
    /** The screen to show now. */
    val topScreen: Screen get() = screenStack.lastOrNull() ?: defaultScreen
}
