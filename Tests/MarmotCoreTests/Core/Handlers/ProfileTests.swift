import Foundation
import MarmotCore
import Nostr
import Testing

/// Setting this account's name: cleaned by the core, published by the messaging layer.
@Suite("Profile") struct ProfileTests {
    @Test("a name is cleaned, published and shown; a blank one is refused")
    func setName() async throws {
        let h = AppHarness()
        try await h.createAccount()
        h.dispatch(.setProfileName(name: "  Alice \n Liddell "))
        try await h.waitFor("named") { $0.profile.name == "Alice Liddell" && !$0.profile.saving }
        #expect(h.state().lastOutcome?.operation == .setProfileName && h.state().lastOutcome?.code == .ok)
        h.dispatch(.setProfileName(name: " \n "))
        try await h.waitFor("refused") { $0.lastOutcome?.operation == .setProfileName && $0.lastOutcome?.isSuccess == false }
        #expect(h.state().profile.name == "Alice Liddell")
    }
}
