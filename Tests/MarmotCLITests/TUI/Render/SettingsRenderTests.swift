import MarmotCore
import Testing

@testable import MarmotCLI

/// The Relays and Profile screens as the renderer draws them, at 80x24 and larger: every string from
/// the core's state (relay status, saved name, saving text, the outcome's message).
struct SettingsRenderTests {
    typealias F = TUIFixtures
    typealias S = SettingsFixtures

    static let sizes = TUIFixtures.screenSizes

    @Test(arguments: sizes)
    func relaysListsEachRelayWithTheCoresStatus(size: TerminalSize) {
        let state = S.relays()
        let lines = F.renderFitting(state, size) { $0.selectedRelay = S.second }
        #expect(lines[0].contains("Relays"))
        #expect(lines.contains { $0.contains("Your relays") && $0.contains("1 of 2 relays connected") })
        #expect(lines.contains { $0.hasPrefix("   \(S.first)") && $0.contains("connected") })
        #expect(lines.contains { $0.hasPrefix(" > \(S.second)") && $0.contains("connecting…") })
        #expect(lines[size.rows - 1].contains("a add  r remove"))
    }

    /// Relays a chat's group brought (issue 26) are listed under the user's own, with their origin.
    @Test(arguments: sizes)
    func relaysListsGroupRelaysWithTheirChats(size: TerminalSize) {
        var state = S.relays()
        state.network.groupRelays = [
            GroupRelayEntry(
                relay: RelayEntry(url: "wss://group.example", connected: true),
                chats: [.init(chatID: "c1", title: "Book club")], originText: "from Book club")
        ]
        let lines = F.renderFitting(state, size) { $0.selectedRelay = S.first }
        #expect(lines.contains { $0.contains("Group relays") })
        #expect(lines.contains { $0.hasPrefix("   wss://group.example") && $0.contains("connected · from Book club") })
    }

    @Test func relaysShowsTheAddFieldAndTheFailedChange() {
        let failed = OperationOutcome(
            operation: .changeRelays, code: .failed, message: "Not a relay address: use ws:// or wss://", sequence: 4)
        let state = S.relays(outcome: failed)
        let lines = F.render(state, F.ui(for: state) {
            $0.addingRelay = true
            $0.relayInput = "wss://new.example"
        })
        F.expectFits(lines, .standard)
        #expect(lines.contains { $0.hasPrefix(" Add relay: wss://new.example") })
        #expect(lines.contains { $0.contains("! Not a relay address: use ws:// or wss://") })
        #expect(lines[23].contains("Enter add"))
    }

    @Test func relaysShowsNoErrorForAnotherOperationsOutcome() {
        let other = OperationOutcome(operation: .createChat, code: .invalidNpub, message: "Invalid npub", sequence: 4)
        let lines = F.render(S.relays(outcome: other))
        #expect(!lines.dropLast(3).contains { $0.contains("Invalid npub") })
    }

    @Test(arguments: sizes)
    func profileShowsTheSavedNameAndTheField(size: TerminalSize) {
        let state = S.profile(ProfileState(name: "Alice"))
        let lines = F.renderFitting(state, size) { $0.profileNameInput = "Ali" }
        #expect(lines[0].contains("Profile"))
        #expect(lines.contains { $0.hasPrefix(" Name: Alice") })
        #expect(lines.contains { $0.contains(F.npub) })
        #expect(lines.contains { $0.hasPrefix(" New name: Ali") })
        #expect(lines[size.rows - 1].contains("Enter save name"))
    }

    @Test func profileShowsNotSetTheSavingTextAndTheError() {
        #expect(F.render(S.profile()).contains { $0.hasPrefix(" Name: not set") })
        let saving = F.render(S.profile(ProfileState(name: nil, saving: true)))
        #expect(saving.contains { $0.contains("Saving your name…") })
        let failed = OperationOutcome(operation: .setProfileName, code: .failed, message: "Enter a name", sequence: 2)
        #expect(F.render(S.profile(outcome: failed)).contains { $0.contains("! Enter a name") })
    }

    @Test func chatListOffersRelaysAndProfile() {
        let keys = F.render(F.loggedIn())[23]
        #expect(keys.contains("R relays"))
        #expect(keys.contains("P name"))
    }

    @Test func bothScreensFitTheSmallestTerminal() {
        let size = TUILayout.minimum
        let adding = F.ui(for: S.relays(), size) {
            $0.addingRelay = true
            $0.relayInput = String(repeating: "x", count: 100)
            $0.selectedRelay = S.second
        }
        F.expectFits(F.render(S.relays(), adding), size)
        let failed = OperationOutcome(operation: .setProfileName, code: .failed, message: "Enter a name", sequence: 2)
        let profile = S.profile(ProfileState(name: String(repeating: "n", count: 64)), outcome: failed)
        F.expectFits(F.render(profile, F.ui(for: profile, size)), size)
    }

    @Test func helpLinesFitIn80Columns() {
        for keys in [RelaysScreen.keys, RelaysScreen.addKeys, ProfileScreen.keys, ChatListScreen.keys] {
            #expect(TextWidth.of(" " + keys) <= 80, "too wide: \(keys)")
        }
    }
}
