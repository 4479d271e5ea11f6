import Foundation
import Logging
import MarmotCore
import Testing

@testable import MarmotCLI

/// The page's Notes and Devices intents through `WebBridge` to a real core with its messaging layer on
/// an in-process relay (issue 29): the contract JSON the page sends reaches the core, and the state the
/// bridge sends back carries what the page draws (Notes first, the device list, the history notice).
@MainActor
@Suite("Web bridge: Notes and Devices", .serialized, .timeLimit(.minutes(3)))
struct WebBridgeDevicesTests {
    @Test("The page opens Notes, writes a note and lists this device")
    func notesAndDevicesThroughTheBridge() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-web-devices-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let relay = try await EmbeddedRelay.start(database: nil, logLevel: .error)
        let session = try await TUIFixtures.openSession("web", root: root, relay: relay)
        let bridge = WebBridge(session: session, logger: Logger(label: "test.web"))
        #expect(await bridge.handle(Self.action(["type": "createAccount"])) == nil)
        _ = try await session.untilLoggedIn("the account")
        try await session.untilOnline()

        // The Devices button: the screen, then the list.
        #expect(await bridge.handle(Self.action(["type": "pushScreen", "screen": ["type": "devices"]])) == nil)
        #expect(await bridge.handle(Self.action(["type": "loadDevices"])) == nil)
        _ = try await session.until("the device list", timeout: .seconds(60)) { (state: AppState) -> Bool? in
            state.router.topScreen == .devices && state.devices.loaded && !state.devices.loading ? true : nil
        }
        let listed = try Self.state(await bridge.stateMessage())
        let router = try #require(listed["router"] as? [String: Any])
        #expect((router["screenStack"] as? [[String: Any]])?.last?["type"] as? String == "devices")
        let devices = try #require(listed["devices"] as? [String: Any])
        let list = try #require(devices["list"] as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list.first?["isThisDevice"] as? Bool == true)
        #expect(list.first?["statusLabel"] as? String == "this device")
        #expect(devices["historyNotice"] as? String == DevicesState.historyNotice)

        // A made-up id is refused by the core with its message, which the page shows.
        #expect(await bridge.handle(Self.action(["type": "linkDevice", "id": "00112233aabbccdd"])) == nil)
        let refused = try await session.until("the refused link", timeout: .seconds(60)) { (state: AppState) -> OperationOutcome? in
            state.lastOutcome?.operation == .linkDevice ? state.lastOutcome : nil
        }
        #expect(refused.code != .ok)
        #expect(refused.message.contains("00112233aabbccdd"), "\(refused)")
        // A link without an id is a contract error, answered to the page and never dispatched.
        let missing = try #require(await bridge.handle(Self.action(["type": "removeDevice"])))
        #expect(missing.contains("\"kind\":\"error\""), "\(missing)")

        // The Notes row: openNotes, then a note sent from the composer.
        #expect(await bridge.handle(Self.action(["type": "updateScreenStack", "screenStack": [Any]()])) == nil)
        #expect(await bridge.handle(Self.action(["type": "openNotes"])) == nil)
        let notes = try await session.until("Notes open", timeout: .seconds(60)) { (state: AppState) -> ChatViewState? in
            state.currentChat?.isNotes == true ? state.currentChat : nil
        }
        #expect(await bridge.handle(Self.action(["type": "sendMessage", "chatId": notes.chatID.rawValue, "content": "buy milk"])) == nil)
        _ = try await session.until("the note sent", timeout: .seconds(60)) { (state: AppState) -> Bool? in
            state.currentChat?.messages.contains { $0.content == "buy milk" && $0.delivery == .sent } == true ? true : nil
        }
        let written = try Self.state(await bridge.stateMessage())
        let chats = try #require(written["chatList"] as? [[String: Any]])
        #expect(chats.first?["isNotes"] as? Bool == true)
        #expect(chats.first?["displayName"] as? String == "Notes")
        #expect((written["currentChat"] as? [String: Any])?["isNotes"] as? Bool == true)

        await session.close()
        await relay.stop()
    }

    @Test("The page has the Notes row, the Devices button and the Devices screen")
    func pageHasNotesAndDevices() {
        for needle in [
            "id=\"notes-entry\"", "id=\"devices-button\"", "id=\"screen-devices\"", "id=\"device-list\"", "id=\"history-notice\"",
            "type: \"openNotes\"", "type: \"loadDevices\"", "type: \"linkDevice\"", "type: \"removeDevice\"", "\"devices\"]",
        ] {
            #expect(WebPage.html.contains(needle), "\(needle)")
        }
    }

    static func action(_ action: [String: Any]) -> String {
        var action = action
        action["schemaVersion"] = 1
        let data = try! JSONSerialization.data(withJSONObject: ["kind": "action", "action": action])
        return String(decoding: data, as: UTF8.self)
    }

    static func state(_ message: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(message.utf8)) as? [String: Any]
        return try #require(object?["state"] as? [String: Any])
    }
}
