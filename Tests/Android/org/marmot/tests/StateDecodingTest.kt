package org.marmot.tests

import com.google.gson.JsonParser
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test
import org.marmot.model.AppUpdate
import org.marmot.model.AuthState
import org.marmot.model.ContractException
import org.marmot.model.ContractJson
import org.marmot.model.Delivery
import org.marmot.model.Screen
import java.io.File

/** The models read the contract document's examples and tolerate what a newer core may add. */
class StateDecodingTest {
    private val doc: String by lazy { File(TestEnv.repo, "docs/ffi-contract.md").readText() }

    /** The first ```json block after [heading]. */
    private fun jsonBlock(heading: String): String =
        doc.substringAfter(heading).substringAfter("```json\n").substringBefore("```")

    @Test
    fun theDocumentsStateExampleDecodes() {
        val state = ContractJson.decodeState(jsonBlock("## AppState"))
        assertEquals(42, state.rev)
        assertEquals(AuthState.LoggedIn("npub1x9…", "3bf0c63f…"), state.auth)
        assertEquals(Screen.Chat("8f1c…"), state.topScreen)
        assertEquals(1, state.chatList.single().unreadCount)
        val messages = state.currentChat!!.messages
        assertEquals(Delivery.Sent, messages[0].delivery)
        assertEquals(Delivery.Failed("No relay accepted the message"), messages[1].delivery)
        assertEquals("5b0e…", state.lastOutcome?.messageId)
        assertEquals(true, state.network.keyPackagePublished)
        assertNull(state.toast)
    }

    @Test
    fun theDocumentsUpdateExamplesDecode() {
        val lines = jsonBlock("## AppUpdate").lines().filter { it.startsWith("{") }
        var decoded = 0
        for (line in lines) {
            // Some examples elide their slice ("[ … ]"); the others are whole JSON.
            val tree = try { JsonParser.parseString(line) } catch (error: RuntimeException) { continue }
            val update = ContractJson.decodeUpdate(line)
            assertEquals(tree.asJsonObject.get("type").asString, update.type)
            assertTrue("${update.type} is a known case", update !is AppUpdate.Unknown)
            decoded += 1
        }
        assertTrue("only $decoded examples decoded", decoded >= 8)
    }

    @Test
    fun unknownFieldsTypesAndScreensAreTolerated() {
        val json = """{"schemaVersion":1,"rev":3,"futureSlice":{"x":1},
            "router":{"defaultScreen":{"type":"chatList"},"screenStack":[{"type":"wallet","id":"w"}]},
            "auth":{"type":"loggedIn","npub":"npub1a","pubkey":"ab","since":5},
            "chatList":[{"chatId":"c","isGroup":true,"futureFlag":true}],
            "network":{"relays":[{"url":"ws://r","state":{"type":"sleeping"},"auth":{"type":"refused","reason":"no"}}]}}"""
        val state = ContractJson.decodeState(json)
        assertEquals(Screen.Unknown("wallet"), state.topScreen)
        assertEquals("npub1a", state.npub)
        assertTrue(state.chatList.single().isGroup)
        assertEquals("sleeping", state.network.relays.single().state.type)
        assertEquals("no", (state.network.relays.single().auth as org.marmot.model.RelayAuth.Refused).reason)
        assertEquals("absent slices keep their defaults", false, state.busy.creatingAccount)
        val update = ContractJson.decodeUpdate("""{"schemaVersion":1,"type":"walletChanged","rev":9,"wallet":{}}""")
        assertEquals(AppUpdate.Unknown("walletChanged", 9), update)
    }

    @Test
    fun anotherSchemaVersionIsRefused() {
        for (json in listOf("""{"schemaVersion":2,"rev":1}""", """{"rev":1}""", "[]", "nope")) {
            try {
                ContractJson.decodeState(json)
                fail("accepted $json")
            } catch (expected: ContractException) {
                assertTrue(expected.message!!.isNotEmpty())
            }
        }
    }

    @Test
    fun secretUpdatesPrintWithoutTheNsec() {
        val update = ContractJson.decodeUpdate(
            """{"schemaVersion":1,"type":"accountCreated","rev":2,"nsec":"nsec1hidden","npub":"npub1a","pubkey":"ab"}"""
        )
        assertEquals("nsec1hidden", (update as AppUpdate.AccountCreated).nsec)
        assertTrue(!update.toString().contains("nsec1hidden"))
    }
}
