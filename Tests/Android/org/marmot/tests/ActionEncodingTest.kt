package org.marmot.tests

import com.google.gson.JsonParser
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test
import org.marmot.MarmotCore
import org.marmot.MarmotNative
import org.marmot.model.AppAction
import org.marmot.model.AppAction.*
import org.marmot.model.Screen
import java.io.File

/**
 * Every AppAction encodes to the contract's shape, every action of the contract has a Kotlin case,
 * and the real core accepts every encoded action (its parser is the contract's reference).
 */
class ActionEncodingTest {
    /** Each action with the JSON docs/ffi-contract.md gives it. */
    private val samples: List<Pair<AppAction, String>> = listOf(
        CreateAccount to """{"type":"createAccount"}""",
        Login("nsec1secret") to """{"type":"login","nsec":"nsec1secret"}""",
        RestoreSession("nsec1secret") to """{"type":"restoreSession","nsec":"nsec1secret"}""",
        Logout to """{"type":"logout"}""",
        ExportSecret to """{"type":"exportSecret"}""",
        PushScreen(Screen.NewChat) to """{"type":"pushScreen","screen":{"type":"newChat"}}""",
        PushScreen(Screen.Chat("c1")) to """{"type":"pushScreen","screen":{"type":"chat","chatId":"c1"}}""",
        UpdateScreenStack(listOf(Screen.ChatList, Screen.GroupInfo("c1"), Screen.Relays, Screen.Profile, Screen.Devices, Screen.NewGroup, Screen.Login)) to
            """{"type":"updateScreenStack","screenStack":[{"type":"chatList"},{"type":"groupInfo","chatId":"c1"},{"type":"relays"},{"type":"profile"},{"type":"devices"},{"type":"newGroup"},{"type":"login"}]}""",
        CreateChat("npub1peer") to """{"type":"createChat","peerNpub":"npub1peer"}""",
        SendMessage("c1", "Hi Bob") to """{"type":"sendMessage","chatId":"c1","content":"Hi Bob"}""",
        RetryMessage("c1", "m1") to """{"type":"retryMessage","chatId":"c1","messageId":"m1"}""",
        SendAttachment.of("c1", "hello".toByteArray(), "a.txt", "text/plain", "look") to
            """{"type":"sendAttachment","chatId":"c1","data":"aGVsbG8=","filename":"a.txt","mimeType":"text/plain","caption":"look"}""",
        SendAttachment("c1", "aGVsbG8=", "a.txt", "text/plain") to
            """{"type":"sendAttachment","chatId":"c1","data":"aGVsbG8=","filename":"a.txt","mimeType":"text/plain"}""",
        DownloadAttachment("c1", "m1", 0) to """{"type":"downloadAttachment","chatId":"c1","messageId":"m1","index":0}""",
        AddBlossomServer("https://blossom.example") to """{"type":"addBlossomServer","url":"https://blossom.example"}""",
        RemoveBlossomServer("https://blossom.example") to """{"type":"removeBlossomServer","url":"https://blossom.example"}""",
        OpenChat("c1") to """{"type":"openChat","chatId":"c1"}""",
        MarkChatRead("c1") to """{"type":"markChatRead","chatId":"c1"}""",
        React("c1", "m1", "👍") to """{"type":"react","chatId":"c1","messageId":"m1","emoji":"👍"}""",
        Unreact("c1", "m1", "👍") to """{"type":"unreact","chatId":"c1","messageId":"m1","emoji":"👍"}""",
        Unreact("c1", "m1") to """{"type":"unreact","chatId":"c1","messageId":"m1"}""",
        Reply("c1", "m1", "yes") to """{"type":"reply","chatId":"c1","messageId":"m1","content":"yes"}""",
        EditMessage("c1", "m1", "fixed") to """{"type":"editMessage","chatId":"c1","messageId":"m1","content":"fixed"}""",
        DeleteMessage("c1", "m1") to """{"type":"deleteMessage","chatId":"c1","messageId":"m1"}""",
        LoadOlder("c1") to """{"type":"loadOlder","chatId":"c1"}""",
        LoadOlderMessages("c1", "m1", 50) to """{"type":"loadOlderMessages","chatId":"c1","beforeMessageId":"m1","limit":50}""",
        AcceptInvite("i1") to """{"type":"acceptInvite","inviteId":"i1"}""",
        DeclineInvite("i1") to """{"type":"declineInvite","inviteId":"i1"}""",
        SetProfileName("Alice") to """{"type":"setProfileName","name":"Alice"}""",
        AddRelay("wss://relay.example") to """{"type":"addRelay","url":"wss://relay.example"}""",
        RemoveRelay("wss://relay.example") to """{"type":"removeRelay","url":"wss://relay.example"}""",
        CreateGroup("Team", listOf("npub1a", "npub1b")) to """{"type":"createGroup","name":"Team","memberNpubs":["npub1a","npub1b"]}""",
        AddMembers("c1", listOf("npub1c")) to """{"type":"addMembers","chatId":"c1","npubs":["npub1c"]}""",
        RemoveMember("c1", "npub1c") to """{"type":"removeMember","chatId":"c1","npub":"npub1c"}""",
        RenameChat("c1", "Book club") to """{"type":"renameChat","chatId":"c1","name":"Book club"}""",
        DisbandChat("c1") to """{"type":"disbandChat","chatId":"c1"}""",
        SetChatImage("c1", "iVBORw0KGgo=", "image/png") to """{"type":"setChatImage","chatId":"c1","data":"iVBORw0KGgo=","mediaType":"image/png"}""",
        SetChatImage("c1", "iVBORw0KGgo=") to """{"type":"setChatImage","chatId":"c1","data":"iVBORw0KGgo="}""",
        ClearChatImage("c1") to """{"type":"clearChatImage","chatId":"c1"}""",
        SetRetention("c1", 86400) to """{"type":"setRetention","chatId":"c1","seconds":86400}""",
        SetAdmin("c1", "npub1c", true) to """{"type":"setAdmin","chatId":"c1","npub":"npub1c","isAdmin":true}""",
        LeaveChat("c1") to """{"type":"leaveChat","chatId":"c1"}""",
        ClearToast to """{"type":"clearToast"}""",
        Foregrounded to """{"type":"foregrounded"}""",
        OpenNotes to """{"type":"openNotes"}""",
        LoadDevices to """{"type":"loadDevices"}""",
        LinkDevice("d1") to """{"type":"linkDevice","id":"d1"}""",
        RemoveDevice("d1") to """{"type":"removeDevice","id":"d1"}""",
        AddMyDevices("c1") to """{"type":"addMyDevices","chatId":"c1"}""",
        MuteChat("c1") to """{"type":"muteChat","chatId":"c1"}""",
        MuteChat("c1", 3600) to """{"type":"muteChat","chatId":"c1","seconds":3600}""",
        UnmuteChat("c1") to """{"type":"unmuteChat","chatId":"c1"}""",
        ArchiveChat("c1") to """{"type":"archiveChat","chatId":"c1"}""",
        UnarchiveChat("c1") to """{"type":"unarchiveChat","chatId":"c1"}""",
        BlockPerson("npub1c") to """{"type":"blockPerson","npub":"npub1c"}""",
        UnblockPerson("npub1c") to """{"type":"unblockPerson","npub":"npub1c"}""",
        Search("hello wor") to """{"type":"search","query":"hello wor"}""",
        Search("hello", "c1", 10) to """{"type":"search","query":"hello","chatId":"c1","limit":10}"""
    )

    @Test
    fun everyActionEncodesToTheContractShape() {
        for ((action, expected) in samples) {
            val want = JsonParser.parseString(expected).asJsonObject.also { it.addProperty("schemaVersion", 1) }
            assertEquals("$action", want, JsonParser.parseString(action.toJson()))
        }
    }

    @Test
    fun everyKotlinCaseHasASample() {
        val cases = AppAction::class.java.declaredClasses.filter { AppAction::class.java.isAssignableFrom(it) }
        val sampled = samples.map { it.first.javaClass }.toSet()
        assertTrue("no case found", cases.size > 40)
        assertEquals(emptyList<String>(), cases.filter { it !in sampled }.map { it.simpleName })
    }

    @Test
    fun everyActionOfTheContractHasAKotlinCase() {
        val kotlinTags = samples.map { it.first.type }.toSet()
        // The table of docs/ffi-contract.md ("| `sendMessage` | …").
        val doc = File(TestEnv.repo, "docs/ffi-contract.md").readText().substringAfter("## AppAction").substringBefore("## AppUpdate")
        val docTags = Regex("""^\| `(\w+)` \|""", RegexOption.MULTILINE).findAll(doc).map { it.groupValues[1] }.toSet() - "type"
        // The core's parser (Sources/MarmotContract/ActionJSON.swift: `case "sendMessage":`).
        val swift = File(TestEnv.repo, "Sources/MarmotContract/ActionJSON.swift").readText()
            .substringAfter("func action(from object").substringBefore("static func screen(")
        val swiftTags = Regex("""case "(\w+)":""").findAll(swift).map { it.groupValues[1] }.toSet()
        assertTrue(docTags.size > 30 && swiftTags.size > 40)
        assertEquals("documented actions without a Kotlin case", emptySet<String>(), docTags - kotlinTags)
        assertEquals("actions the core parses without a Kotlin case", emptySet<String>(), swiftTags - kotlinTags)
        assertEquals("Kotlin cases the core does not parse", emptySet<String>(), kotlinTags - swiftTags)
    }

    @Test
    fun theCoreAcceptsEveryEncodedActionAndRefusesBadOnes() {
        // No relay: nothing leaves the machine; the actions are parsed and queued.
        val core = MarmotCore.create(TestEnv.native, File(TestEnv.newDir("parse"), "data").path, emptyList(), null)
        try {
            for ((action, _) in samples) {
                assertEquals("the core refused ${action.type}", MarmotNative.OK, core.dispatch(action.toJson()))
            }
            assertEquals(MarmotNative.ERR_INVALID_JSON, core.dispatch("[1,2]"))
            assertEquals(MarmotNative.ERR_SCHEMA_VERSION, core.dispatch("""{"schemaVersion":2,"type":"logout"}"""))
            assertEquals(MarmotNative.ERR_UNKNOWN_ACTION, core.dispatch("""{"type":"launchRocket"}"""))
            assertEquals(MarmotNative.ERR_INVALID_FIELD, core.dispatch("""{"type":"openChat"}"""))
            assertEquals(MarmotNative.ERR_INVALID_FIELD, core.dispatch("""{"type":"search","query":"x","chatId":null}"""))
            assertEquals(1, TestEnv.native.marmot_schema_version())
            assertTrue(core.errorMessage(MarmotNative.ERR_INVALID_FIELD).isNotBlank())
        } finally {
            core.destroy()
        }
        assertEquals(MarmotNative.ERR_DESTROYED, core.dispatch(ClearToast.toJson()))
    }

    @Test
    fun secretsArePrintedWithoutTheNsec() {
        assertFalse(Login("nsec1secret").toString().contains("nsec1secret"))
        assertFalse(RestoreSession("nsec1secret").toString().contains("nsec1secret"))
    }
}
