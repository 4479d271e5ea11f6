import MarmotCore
import Testing

@testable import MarmotCLI

/// Notes on the chat list and the Devices screen as the renderer draws them (issue 29), at 80x24 and
/// larger: every string from the core's state (names, ids, times, status labels, the history notice).
struct DevicesRenderTests {
    typealias F = TUIFixtures
    typealias D = DevicesFixtures

    static let sizes = TUIFixtures.screenSizes

    @Test(arguments: sizes)
    func notesIsTheFirstChatRowWithNoPeer(size: TerminalSize) {
        let lines = F.renderFitting(F.loggedIn(chats: [D.notesSummary, F.aliceSummary]), size)
        let notes = try! #require(lines.firstIndex { $0.contains("Notes") })
        let alice = try! #require(lines.firstIndex { $0.contains("Alice") })
        #expect(notes < alice)
        #expect(lines[notes].hasPrefix(" > Notes · notes to self"))
        // No member count and no npub: the chat is this account's own.
        #expect(!lines[notes].contains("members"))
        #expect(lines[notes + 1].contains("You: buy milk"))
        #expect(!lines.contains { $0.contains("press o") })
        #expect(lines[size.rows - 1].contains("o notes  D devices"))
    }

    @Test(arguments: sizes)
    func beforeNotesExistsTheListSaysHowToOpenIt(size: TerminalSize) {
        let lines = F.renderFitting(F.loggedIn(), size)
        let hint = try! #require(lines.firstIndex { $0.contains("Notes · notes to self on all your devices · press o") })
        let alice = try! #require(lines.firstIndex { $0.contains("Alice") })
        #expect(hint < alice)
        let empty = F.loggedIn(chats: [])
        let emptyLines = F.renderFitting(empty, size)
        #expect(emptyLines.contains { $0.contains("press o") }, "\(emptyLines.joined(separator: "\n"))")
    }

    @Test(arguments: sizes)
    func devicesListsEachDeviceWithItsMarks(size: TerminalSize) {
        let lines = F.renderFitting(D.devices(), size) { $0.selectedDevice = D.tablet }
        #expect(lines[0].contains("Marmot · Devices"))
        #expect(lines.contains { $0.contains("Your devices · 2 linked · 1 waiting") })
        #expect(lines.contains { $0.hasPrefix("   laptop  \(D.laptop)") && $0.contains("added Sun") && $0.contains("this device") })
        #expect(lines.contains { $0.hasPrefix("   phone  \(D.phone)") && $0.contains("added Mon") && $0.hasSuffix("linked ") })
        #expect(lines.contains { $0.hasPrefix(" > tablet  \(D.tablet)") && $0.contains("waiting to be linked") && !$0.contains("added") })
        let notice = lines.joined(separator: " ").split(separator: " ").joined(separator: " ")
        #expect(notice.contains("earlier notes are not transferred."))
        #expect(lines[size.rows - 1].contains("l link (it is yours)"))
    }

    @Test func theHelpLineFollowsTheHighlightedDevice() {
        #expect(F.render(D.devices())[23].contains(DevicesScreen.keys))
        let phone = F.render(D.devices(), F.ui(for: D.devices()) { $0.selectedDevice = D.phone })
        #expect(phone[23].contains("r remove"))
        for keys in [DevicesScreen.keys, DevicesScreen.waitingKeys, DevicesScreen.linkedKeys, ChatListScreen.keys] {
            #expect(TextWidth.of(" " + keys) <= 80, "too wide: \(keys)")
        }
    }

    @Test func devicesSaysWhileReadingAndShowsAFailedChange() {
        let reading = F.render(D.devices([], loaded: false, loading: true))
        #expect(reading.contains { $0.contains("Your devices · reading…") })
        #expect(reading.contains { $0.contains("Reading your devices…") })
        let failed = OperationOutcome(
            operation: .linkDevice, code: .unknownDevice, message: "Could not link the device: no device 00ff", sequence: 3)
        let lines = F.render(D.devices(outcome: failed))
        #expect(lines.contains { $0.contains("! Could not link the device: no device 00ff") })
        // Another screen's failure is not this screen's.
        let other = OperationOutcome(operation: .changeRelays, code: .failed, message: "relay refused", sequence: 4)
        #expect(!F.render(D.devices(outcome: other)).contains { $0.contains("relay refused") })
    }

    @Test func removalAsksOnTheNoticeLine() {
        let lines = F.render(D.devices(), F.ui(for: D.devices()) { $0.confirmingDeviceRemoval = D.phone })
        #expect(lines[21].contains("Remove phone? It reads nothing written after. y/n"))
    }

    @Test func aHostileDeviceNameIsDrawnInert() {
        var list = D.list
        list[1].name = "ph\u{1B}[2Jone\u{202E}x"
        let lines = F.render(D.devices(list))
        #expect(!lines.joined().contains("\u{1B}"))
        #expect(!lines.joined().contains("\u{202E}"))
    }

    @Test func notesChatTitleCountsDevices() {
        var state = F.loggedIn(chats: [D.notesSummary], stack: [.chat(chatID: D.notesID)])
        var chat = ChatViewState(
            chatID: D.notesID, peerNpub: F.npub, peerName: nil, displayName: "Notes", messages: [], canLoadOlder: false,
            isGroup: true, memberNpubs: [], memberCount: 2)
        chat.isNotes = true
        state.currentChat = chat
        let lines = F.render(state)
        #expect(lines[0].contains("Notes (2 devices)"))
        #expect(!lines[23].contains("group info"))
    }
}
