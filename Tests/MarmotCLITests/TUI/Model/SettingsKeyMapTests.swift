import MarmotCore
import Testing

@testable import MarmotCLI

/// The account keys: R opens Relays (a adds, r removes the highlighted relay), P opens Profile (Enter
/// sends the typed name); each forwards the typed text as is, and the core validates it.
struct SettingsKeyMapTests {
    typealias F = TUIFixtures
    typealias S = SettingsFixtures

    @Test func shiftROpensRelaysAndShiftPOpensProfile() {
        #expect(F.press([.character("R")], on: F.loggedIn()).actions == [.pushScreen(.relays)])
        #expect(F.press([.character("P")], on: F.loggedIn()).actions == [.pushScreen(.profile)])
    }

    @Test func addingARelaySendsTheTypedURLAndClosesTheField() {
        let result = F.press([.character("a")] + F.typing("wss://new.example") + [.enter], on: S.relays())
        #expect(result.actions == [.addRelay(url: "wss://new.example")])
        #expect(!result.ui.addingRelay)
        #expect(result.ui.relayInput.isEmpty)
    }

    @Test func lettersTypedInTheAddFieldAreTextNotKeys() {
        let result = F.press([.character("a")] + F.typing("ra"), on: S.relays())
        #expect(result.actions.isEmpty)
        #expect(result.ui.relayInput == "ra")
        #expect(result.ui.addingRelay)
    }

    @Test func escapeCancelsTheAddFieldThenGoesBack() {
        let cancelled = F.press([.character("a")] + F.typing("wss://x") + [.escape], on: S.relays())
        #expect(cancelled.actions.isEmpty)
        #expect(!cancelled.ui.addingRelay)
        #expect(F.press([.escape], on: S.relays()).actions == [.updateScreenStack([])])
    }

    @Test func removeTakesTheHighlightedRelay() {
        #expect(F.press([.character("r")], on: S.relays()).actions == [.removeRelay(url: S.first)])
        #expect(F.press([.down, .character("r")], on: S.relays()).actions == [.removeRelay(url: S.second)])
        #expect(F.press([.down, .down, .up, .delete], on: S.relays()).actions == [.removeRelay(url: S.first)])
    }

    @Test func aRemovedRelayDropsTheHighlight() {
        let ui = F.ui(for: S.relays()) { $0.selectedRelay = "wss://gone.example" }
        #expect(ui.reconciled(with: S.relays()).selectedRelay == nil)
    }

    @Test func profileSendsTheTypedNameAndClearsTheField() {
        let result = F.press(F.typing("Alice Liddell") + [.enter], on: S.profile())
        #expect(result.actions == [.setProfileName(name: "Alice Liddell")])
        #expect(result.ui.profileNameInput.isEmpty)
        #expect(F.press([.escape], on: S.profile()).actions == [.updateScreenStack([])])
    }

    @Test func profileIgnoresKeysWhileTheCoreSaves() {
        let saving = S.profile(ProfileState(name: "Old", saving: true))
        let ui = F.ui(for: saving) { $0.profileNameInput = "New" }
        let result = F.press(F.typing("x") + [.enter], on: saving, ui: ui)
        #expect(result.actions.isEmpty)
        #expect(result.ui.profileNameInput == "New")
    }

    @Test func leavingTheScreensClearsWhatWasTyped() {
        let relaysUI = F.ui(for: S.relays()) {
            $0.addingRelay = true
            $0.relayInput = "wss://half"
        }
        let back = relaysUI.reconciled(with: F.loggedIn())
        #expect(!back.addingRelay)
        #expect(back.relayInput.isEmpty)
        let profileUI = F.ui(for: S.profile()) { $0.profileNameInput = "Half" }
        #expect(profileUI.reconciled(with: F.loggedIn()).profileNameInput.isEmpty)
    }
}
