import MarmotCore
import Testing

@testable import MarmotCLI

/// The Notes and Devices keys (issue 29): o asks the core for Notes, D opens Devices and asks for the
/// list; on Devices l links the highlighted waiting device, r asks and y removes a linked one (never
/// this device), u reads the list again. The renderer only forwards: the core checks the ids.
struct DevicesKeyMapTests {
    typealias F = TUIFixtures
    typealias D = DevicesFixtures

    @Test func oOpensNotesAndShiftDOpensDevicesWithAFreshList() {
        #expect(F.press([.character("o")], on: F.loggedIn()).actions == [.openNotes])
        #expect(F.press([.character("D")], on: F.loggedIn()).actions == [.pushScreen(.devices), .loadDevices])
    }

    @Test func enterOnTheNotesRowOpensThatChat() {
        let state = F.loggedIn(chats: [D.notesSummary, F.aliceSummary])
        #expect(F.press([.enter], on: state).actions == [.openChat(chatID: D.notesID)])
    }

    @Test func linkTakesTheHighlightedWaitingDeviceOnly() {
        #expect(F.press([.end, .character("l")], on: D.devices()).actions == [.linkDevice(id: D.tablet)])
        #expect(F.press([.down, .down, .enter], on: D.devices()).actions == [.linkDevice(id: D.tablet)])
        // Linked devices (this one, the phone) are not linked again.
        #expect(F.press([.character("l")], on: D.devices()).actions.isEmpty)
        #expect(F.press([.down, .character("l")], on: D.devices()).actions.isEmpty)
    }

    @Test func removeAsksThenTakesTheHighlightedLinkedDevice() {
        let asked = F.press([.down, .character("r")], on: D.devices())
        #expect(asked.actions.isEmpty)
        #expect(asked.ui.confirmingDeviceRemoval == D.phone)
        let removed = F.press([.character("y")], on: D.devices(), ui: asked.ui)
        #expect(removed.actions == [.removeDevice(id: D.phone)])
        #expect(removed.ui.confirmingDeviceRemoval == nil)
        let declined = F.press([.character("n"), .character("y")], on: D.devices(), ui: asked.ui)
        #expect(declined.actions.isEmpty)
        #expect(F.press([.down, .delete, .character("Y")], on: D.devices()).actions == [.removeDevice(id: D.phone)])
    }

    @Test func thisDeviceAndWaitingDevicesAreNotRemoved() {
        let onThis = F.press([.character("r")], on: D.devices())
        #expect(onThis.actions.isEmpty)
        #expect(onThis.ui.confirmingDeviceRemoval == nil)
        #expect(F.press([.end, .character("r"), .character("y")], on: D.devices()).actions.isEmpty)
    }

    @Test func nothingIsSentWhileTheCoreIsBusyWithDevices() {
        let busy = D.devices(loading: true)
        #expect(F.press([.end, .character("l")], on: busy).actions.isEmpty)
        #expect(F.press([.down, .character("r"), .character("y")], on: busy).actions.isEmpty)
        #expect(F.press([.character("u")], on: busy).actions.isEmpty)
        #expect(F.press([.character("u")], on: D.devices()).actions == [.loadDevices])
    }

    @Test func selectionMovesAndEscapeGoesBack() {
        let moved = F.press([.character("j"), .character("j"), .character("j"), .character("k")], on: D.devices())
        #expect(moved.ui.selectedDevice == D.phone)
        #expect(F.press([.escape], on: D.devices()).actions == [.updateScreenStack([])])
    }

    @Test func aSelectionOfADeviceThatWentAwayIsDropped() {
        var ui = F.ui(for: D.devices())
        ui.selectedDevice = D.tablet
        ui.confirmingDeviceRemoval = D.phone
        let reconciled = ui.reconciled(with: D.devices(Array(D.list.prefix(1))))
        #expect(reconciled.selectedDevice == nil)
        #expect(reconciled.confirmingDeviceRemoval == nil)
    }

    @Test func ctrlGInNotesDoesNotOpenGroupInfo() {
        var state = F.loggedIn(chats: [D.notesSummary], stack: [.chat(chatID: D.notesID)])
        var chat = ChatViewState(
            chatID: D.notesID, peerNpub: F.npub, peerName: nil, displayName: "Notes", messages: [], canLoadOlder: false,
            isGroup: true, memberNpubs: [], memberCount: 2)
        chat.isNotes = true
        state.currentChat = chat
        #expect(F.press([.control("g")], on: state).actions.isEmpty)
    }
}
