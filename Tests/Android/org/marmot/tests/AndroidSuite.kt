package org.marmot.tests

import org.junit.runner.RunWith
import org.junit.runners.Suite

/**
 * Every JVM test of the Kotlin layer, in order: unit tests, the sessions over `marmot relay`, then the
 * round trip of what those sessions recorded. scripts/android-test.sh runs this suite.
 */
@RunWith(Suite::class)
@Suite.SuiteClasses(
    RevGateTest::class,
    StateDecodingTest::class,
    ActionEncodingTest::class,
    AccountTest::class,
    ChatTest::class,
    GroupTest::class,
    ListenerReentryTest::class,
    ResyncTest::class,
    CloseTest::class,
    StreamRoundTripTest::class
)
class AndroidSuite
