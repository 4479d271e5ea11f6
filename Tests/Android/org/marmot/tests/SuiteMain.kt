package org.marmot.tests

import org.junit.runner.Description
import org.junit.runner.JUnitCore
import org.junit.runner.Result
import org.junit.runner.notification.Failure
import org.junit.runner.notification.RunListener
import kotlin.system.exitProcess

/**
 * Runs [AndroidSuite] and prints each test with its time, the failures with their traces, and a total;
 * exits 1 on any failure. Why not plain JUnitCore: its dots give no per-test timing to report.
 */
object SuiteMain {
    @JvmStatic
    fun main(args: Array<String>) {
        val core = JUnitCore()
        core.addListener(object : RunListener() {
            private var started = 0L
            override fun testStarted(description: Description) {
                started = System.nanoTime()
            }

            override fun testFinished(description: Description) {
                val millis = (System.nanoTime() - started) / 1_000_000
                println(String.format("android-test: %6d ms  %s.%s", millis, description.testClass.simpleName, description.methodName))
            }

            override fun testFailure(failure: Failure) {
                println("android-test: FAILED ${failure.testHeader}\n${failure.trace}")
            }
        })
        val result: Result = core.run(AndroidSuite::class.java)
        println("android-test: ${result.runCount} tests, ${result.failureCount} failed, ${result.ignoreCount} ignored, ${result.runTime} ms")
        exitProcess(if (result.wasSuccessful()) 0 else 1)
    }
}
