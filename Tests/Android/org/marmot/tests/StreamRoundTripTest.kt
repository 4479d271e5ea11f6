package org.marmot.tests

import com.google.gson.JsonParser
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import org.marmot.model.AppUpdate
import org.marmot.model.ContractJson

/**
 * Every update and state the core emitted during this run's sessions decodes into the models, and
 * writing the model back gives the same JSON: no field of the contract is missing from the Kotlin side.
 * Runs last in [AndroidSuite], over what the other tests recorded.
 */
class StreamRoundTripTest {
    @Test
    fun everyRecordedUpdateAndStateRoundTrips() {
        val updates = TestEnv.recorded.toList()
        val states = TestEnv.snapshots.toList()
        assertTrue("nothing recorded: run this test after the others (AndroidSuite)", updates.size > 100)
        val types = sortedMapOf<String, Int>()
        for (json in updates) {
            val update = ContractJson.decodeUpdate(json)
            assertTrue("an update type the models lack: ${update.type}", update !is AppUpdate.Unknown)
            types[update.type] = (types[update.type] ?: 0) + 1
            assertEquals("round trip of a ${update.type}", JsonParser.parseString(json), ContractJson.toTree(update))
        }
        for (json in states) {
            assertEquals("round trip of a state", JsonParser.parseString(json), ContractJson.toTree(ContractJson.decodeState(json)))
        }
        println("StreamRoundTripTest: ${updates.size} updates and ${states.size} states round-tripped; types $types")
        for (expected in listOf("fullState", "accountCreated", "secretAccepted", "secretForgotten", "routerChanged",
                "currentChatChanged", "networkChanged", "invitesChanged", "busyChanged")) {
            assertTrue("no $expected in the recorded stream", expected in types)
        }
    }
}
