import Foundation
import MarmotCore
import Testing

@testable import MarmotCLI

/// Two installations of one account (a laptop and a phone, each with its own home) and a stranger,
/// three real cores with their messaging layers on an in-process relay (issue 29). Everything goes
/// through the key map and the renderer, as the terminal driver would: o opens Notes, D opens
/// Devices, l links the phone, r then y removes it.
@MainActor
@Suite(.serialized, .timeLimit(.minutes(4)))
struct TUIDevicesDrivenTests {
    @Test func laptopLinksThePhoneInDevicesBothWriteNotesThenItIsRemoved() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-tui-devices-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let relay = try await EmbeddedRelay.start(database: nil, logLevel: .error)
        let laptop = try await TUIFixtures.openSession("laptop", root: root, relay: relay)
        let phone = try await TUIFixtures.openSession("phone", root: root, relay: relay)
        let stranger = try await TUIFixtures.openSession("stranger", root: root, relay: relay)
        laptop.dispatch(.createAccount)
        stranger.dispatch(.createAccount)
        let account = try await laptop.untilLoggedIn("the laptop's account")
        _ = try await stranger.untilLoggedIn("the stranger's account")
        try await laptop.untilOnline()

        // The laptop: the chat list says how to open Notes; o opens it, a note is written.
        let laptopScreen = DrivenScreen(laptop)
        _ = try await laptop.until("the chat list settled") { $0.showsNoChatsPlaceholder ? true : nil }
        #expect(laptopScreen.frame.contains { $0.contains("Notes · notes to self on all your devices · press o") })
        laptopScreen.press([.character("o")])
        let notes = try await laptop.until("Notes open", timeout: .seconds(60)) { (state: AppState) -> ChatViewState? in
            state.currentChat?.isNotes == true ? state.currentChat : nil
        }
        #expect(laptopScreen.frame[0].contains("Marmot · Notes (1 device)"), "\(laptopScreen.frame.joined(separator: "\n"))")
        laptopScreen.type("before the phone")
        laptopScreen.press([.enter])
        _ = try await laptop.until("the first note sent", timeout: .seconds(60)) { (state: AppState) -> Bool? in
            state.currentChat?.messages.contains { $0.content == "before the phone" && $0.delivery == .sent } == true ? true : nil
        }
        laptopScreen.press([.escape])
        _ = try await laptop.until("the chat list") { $0.router.topScreen == .chatList ? true : nil }
        let list = laptopScreen.frame
        let notesRow = try #require(list.firstIndex { $0.contains(" > Notes · notes to self") }, "\(list.joined(separator: "\n"))")
        #expect(list[notesRow + 1].contains("before the phone"))

        // The phone logs in with the same key in its own home and publishes its own key package.
        let nsec = try #require(try laptop.secretStore.load())
        phone.dispatch(.login(nsec: nsec))
        _ = try await phone.untilLoggedIn("the phone's login")
        _ = try await phone.until("the phone's key package", timeout: .seconds(60)) { $0.network.keyPackagePublished == true ? true : nil }

        // D on the laptop, then u until the phone shows up waiting; never the stranger.
        laptopScreen.press([.character("D")])
        _ = try await laptop.until("Devices") { $0.router.topScreen == .devices ? true : nil }
        let deadline = ContinuousClock.now + .seconds(60)
        while !laptop.state.devices.list.contains(where: { !$0.isLinked }) {
            guard ContinuousClock.now < deadline else { throw CLIError(.failure, "the phone never showed up waiting") }
            let mark = laptop.outcomeMark
            laptopScreen.press([.character("u")])
            _ = try await laptop.until("a device list") { (state: AppState) -> Bool? in
                (state.lastOutcome?.sequence ?? 0) > mark && !state.devices.loading ? true : nil
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        let waiting = laptop.state.devices.list.filter { !$0.isLinked }
        #expect(waiting.count == 1)
        let phoneID = try #require(waiting.first?.id)
        var frame = laptopScreen.frame
        #expect(frame.contains { $0.contains("this device") && $0.hasPrefix(" > ") }, "\(frame.joined(separator: "\n"))")
        #expect(frame.contains { $0.contains(phoneID) && $0.contains("waiting to be linked") }, "\(frame.joined(separator: "\n"))")
        #expect(frame.joined(separator: " ").split(separator: " ").joined(separator: " ").contains("earlier notes are not transferred"))

        // Select the phone and press l: the core links it.
        laptopScreen.press([.end])
        #expect(laptopScreen.frame.last?.contains("l link (it is yours)") == true)
        laptopScreen.press([.character("l")])
        _ = try await laptop.until("the phone linked", timeout: .seconds(60)) { (state: AppState) -> Bool? in
            state.devices.list.contains { $0.id == phoneID && $0.isLinked } ? true : nil
        }
        frame = laptopScreen.frame
        #expect(frame.contains { $0.contains(phoneID) && $0.hasSuffix(" linked ") && !$0.contains("waiting") }, "\(frame.joined(separator: "\n"))")
        #expect(frame.contains { $0.contains("Your devices · 2 linked · 0 waiting") }, "\(frame.joined(separator: "\n"))")

        // The phone: Notes first in its chat list; o opens it; it reads the laptop and writes back.
        let phoneScreen = DrivenScreen(phone)
        _ = try await phone.until("Notes on the phone", timeout: .seconds(60)) { (state: AppState) -> Bool? in
            state.chatList.first?.chatID == notes.chatID ? true : nil
        }
        #expect(phoneScreen.frame.contains { $0.contains("Notes · notes to self") })
        laptopScreen.press([.escape])
        _ = try await laptop.until("the chat list again") { $0.router.topScreen == .chatList ? true : nil }
        let laptopChat = DrivenScreen(laptop)
        laptopChat.press([.character("o")])
        _ = try await laptop.until("Notes open again") { (state: AppState) -> Bool? in
            state.currentChat?.chatID == notes.chatID ? true : nil
        }
        laptopChat.type("from the laptop")
        laptopChat.press([.enter])
        phoneScreen.press([.character("o")])
        _ = try await phone.until("the laptop's note on the phone", timeout: .seconds(60)) { (state: AppState) -> Bool? in
            state.currentChat?.messages.contains { $0.content == "from the laptop" } == true ? true : nil
        }
        frame = phoneScreen.frame
        #expect(frame.contains { $0.contains("from the laptop") }, "\(frame.joined(separator: "\n"))")
        #expect(!frame.contains { $0.contains("before the phone") }, "\(frame.joined(separator: "\n"))")
        phoneScreen.type("from the phone")
        phoneScreen.press([.enter])
        _ = try await laptop.until("the phone's note on the laptop", timeout: .seconds(60)) { (state: AppState) -> Bool? in
            state.currentChat?.messages.contains { $0.content == "from the phone" } == true ? true : nil
        }

        // The phone's own Devices page marks it "this device".
        phoneScreen.press([.escape])
        _ = try await phone.until("the phone's chat list") { $0.router.topScreen == .chatList ? true : nil }
        phoneScreen.press([.character("D")])
        _ = try await phone.until("the phone's devices", timeout: .seconds(60)) { (state: AppState) -> Bool? in
            state.devices.loaded && !state.devices.loading && state.devices.list.count >= 2 ? true : nil
        }
        // The phone's own Devices page: itself marked "this device", the laptop linked. (The ids are
        // each installation's own view: the core pins a leaf's id where it first sees it.)
        frame = phoneScreen.frame
        #expect(frame.contains { $0.hasSuffix(" this device ") }, "\(frame.joined(separator: "\n"))")
        #expect(frame.contains { $0.hasSuffix(" linked ") && !$0.contains("waiting") }, "\(frame.joined(separator: "\n"))")

        // Back on the laptop's Devices: r on the phone asks, y removes it.
        laptopChat.press([.escape])
        _ = try await laptop.until("the laptop's chat list") { $0.router.topScreen == .chatList ? true : nil }
        laptopChat.press([.character("D")])
        _ = try await laptop.until("Devices again") { (state: AppState) -> Bool? in
            state.router.topScreen == .devices && !state.devices.loading ? true : nil
        }
        laptopChat.ui.selectedDevice = phoneID
        laptopChat.press([.character("r")])
        #expect(laptopChat.frame.contains { $0.contains("? It reads nothing written after. y/n") })
        laptopChat.press([.character("y")])
        _ = try await laptop.until("the phone removed", timeout: .seconds(60)) { (state: AppState) -> OperationOutcome? in
            state.lastOutcome?.operation == .removeDevice && !state.devices.loading ? state.lastOutcome : nil
        }
        #expect(laptop.state.lastOutcome?.code == .ok, "\(laptop.state.lastOutcome.map { "\($0)" } ?? "none")")
        #expect(!laptop.state.devices.list.contains { $0.id == phoneID && $0.isLinked })
        _ = try await phone.until("the phone out of Notes", timeout: .seconds(60)) { (state: AppState) -> Bool? in
            state.chatList.first { $0.chatID == notes.chatID }?.isMember == false ? true : nil
        }
        #expect(account.npub.hasPrefix("npub1"))

        for session in [laptop, phone, stranger] { await session.close() }
        await relay.stop()
    }
}
