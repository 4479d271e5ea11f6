import Foundation
import MarmotCore
import Nostr
import NostrClient
import NostrRelay
import Testing

/// Notes to self and linked devices (issue 29): real apps (two installations of one account, and
/// a stranger) on one embedded relay.
@Suite(.serialized, .timeLimit(.minutes(4))) struct MarmotNotesTests {
    /// The Notes chat is made on first use, listed first as "Notes" with no peer, a note goes
    /// Pending → Sent, and after a restart the chat and the note are still there, still first.
    @Test func notesChatOnOneDeviceSurvivesRestart() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (_, relay) = try await world.startRelay()
        let alice = world.app("alice", relays: [relay])
        let bob = world.app("bob", relays: [relay])
        let keys = try await alice.createAccount()
        let bobKeys = try await bob.createAccount()
        try await LiveWorld.waitForKeyPackage(of: bobKeys.publicKey, on: relay)
        alice.dispatch(.createChat(peerNpub: bobKeys.publicKey.npub))
        try await alice.waitFor("chat with bob") { $0.currentChat?.peerNpub == bobKeys.publicKey.npub }
        let bobChat = try #require(alice.state().currentChat?.chatID)
        alice.dispatch(.sendMessage(chatID: bobChat, content: "hi bob"))
        try await alice.waitFor("sent to bob") { $0.currentChat?.messages.last?.delivery == .sent }

        alice.dispatch(.openNotes)
        try await alice.waitFor("notes open") { $0.currentChat?.isNotes == true }
        let notes = try #require(alice.state().currentChat)
        #expect(notes.displayName == "Notes")
        #expect(notes.chatID != bobChat)
        alice.dispatch(.sendMessage(chatID: notes.chatID, content: "buy milk"))
        try await alice.waitFor("note sent") { state in
            state.currentChat?.messages.contains { $0.content == "buy milk" && $0.isMine && $0.delivery == .sent } == true
        }
        #expect(alice.state().lastOutcome?.code == .ok)
        alice.dispatch(.updateScreenStack([]))
        try await alice.waitFor("chat list") { $0.currentChat == nil }
        // Notes first even though the chat with Bob is older and Bob's chat is not notes.
        #expect(alice.state().chatList.first?.isNotes == true)
        #expect(alice.state().chatList.first?.displayName == "Notes")
        #expect(alice.state().chatList.filter(\.isNotes).count == 1)

        let restarted = try await alice.restarted(keys: keys)
        try await restarted.waitFor("chats listed") { $0.chatList.count == 2 }
        #expect(restarted.state().chatList.first?.isNotes == true)
        #expect(restarted.state().chatList.first?.lastMessage == "buy milk")
        // Opening it again reuses the same chat.
        restarted.dispatch(.openNotes)
        try await restarted.waitFor("notes open again") { state in
            state.currentChat?.chatID == notes.chatID && state.currentChat?.messages.contains { $0.content == "buy milk" } == true
        }
        #expect(restarted.state().chatList.filter(\.isNotes).count == 1)
    }

    /// Two installations of one account: A makes Notes and writes before B exists; A restarts; B
    /// logs in with the same nsec in another folder and publishes its own key package; a stranger
    /// publishes one too. A sees exactly one device waiting (B's, never the stranger's), links it;
    /// B joins without being asked, reads what A writes from then on (not what came before) and
    /// A reads B. Then A removes B: B's Notes chat goes inactive and B never reads A's next note.
    @Test func twoInstallationsShareNotesUntilRemoved() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (_, relay) = try await world.startRelay()
        let firstRun = world.app("laptop", relays: [relay])
        let keys = try await firstRun.createAccount()
        firstRun.dispatch(.openNotes)
        try await firstRun.waitFor("notes open") { $0.currentChat?.isNotes == true }
        let notesID = try #require(firstRun.state().currentChat?.chatID)
        firstRun.dispatch(.sendMessage(chatID: notesID, content: "before linking"))
        try await firstRun.waitFor("first note sent") { $0.currentChat?.messages.last?.delivery == .sent }

        let laptop = try await firstRun.restarted(keys: keys)
        try await laptop.waitFor("notes listed") { $0.chatList.first?.isNotes == true }

        let phone = world.app("phone", relays: [relay])
        phone.dispatch(.login(nsec: keys.secretKey.nsecEncoded()))
        try await phone.waitFor("phone logged in") { $0.auth.isLoggedIn && $0.network.keyPackagePublished == true }
        let stranger = world.app("stranger", relays: [relay])
        let strangerKeys = try await stranger.createAccount()
        try await LiveWorld.waitForKeyPackage(of: strangerKeys.publicKey, on: relay)

        // The laptop lists devices until the phone's key package shows up as waiting.
        try await waitUntil("phone waiting on the laptop", timeout: .seconds(60)) {
            let mark = laptop.state().lastOutcome?.sequence ?? 0
            laptop.dispatch(.loadDevices)
            try await laptop.waitFor("device list") { ($0.lastOutcome?.sequence ?? 0) > mark && !$0.devices.loading }
            return laptop.state().devices.list.contains { !$0.isLinked }
        }
        let devices = laptop.state().devices.list
        #expect(devices.filter(\.isThisDevice).count == 1)
        #expect(devices.filter { $0.isThisDevice && !$0.isLinked }.isEmpty)
        let waiting = devices.filter { !$0.isLinked }
        // Only the phone: the stranger's key package (another npub) is never offered.
        #expect(waiting.count == 1)
        let phoneID = try #require(waiting.first?.id)
        #expect(waiting.first?.statusLabel == "waiting to be linked")

        laptop.dispatch(.linkDevice(id: phoneID))
        try await laptop.waitFor("phone linked") { state in
            state.lastOutcome?.operation == .linkDevice && state.lastOutcome?.code == .ok
                && state.devices.list.contains { $0.id == phoneID && $0.isLinked }
        }
        #expect(laptop.state().devices.list.filter(\.isLinked).count == 2)

        // The phone joins the laptop's Notes chat by itself (a Welcome from its own account).
        try await phone.waitFor("phone has notes") { state in
            state.chatList.contains { $0.chatID == notesID && $0.isNotes }
        }
        #expect(phone.state().invites.isEmpty)
        #expect(phone.state().chatList.first?.chatID == notesID)

        laptop.dispatch(.sendMessage(chatID: notesID, content: "from the laptop"))
        try await phone.waitFor("phone reads the laptop") { $0.chatList.first?.lastMessage == "from the laptop" }
        #expect((phone.state().chatList.first?.unreadCount ?? 0) >= 1)
        phone.dispatch(.openNotes)
        try await phone.waitFor("phone notes open") { state in
            state.currentChat?.chatID == notesID && state.currentChat?.messages.contains { $0.content == "from the laptop" } == true
        }
        let phoneView = try #require(phone.state().currentChat)
        // Ours on every device, and no history from before the link.
        #expect(phoneView.messages.first { $0.content == "from the laptop" }?.isMine == true)
        #expect(!phoneView.messages.contains { $0.content == "before linking" })

        phone.dispatch(.sendMessage(chatID: notesID, content: "from the phone"))
        try await laptop.waitFor("laptop reads the phone") { $0.chatList.first?.lastMessage == "from the phone" }

        // On the phone: itself under the id the laptop gave it, the laptop linked, and the laptop's
        // own key package never offered as a device waiting to be linked (it would be added twice).
        let phoneMark = phone.state().lastOutcome?.sequence ?? 0
        phone.dispatch(.loadDevices)
        try await phone.waitFor("phone's device list") { ($0.lastOutcome?.sequence ?? 0) > phoneMark && !$0.devices.loading }
        let seenByPhone = phone.state().devices.list
        #expect(seenByPhone.filter(\.isLinked).count == 2)
        #expect(seenByPhone.first(where: \.isThisDevice)?.id == phoneID)
        #expect(!seenByPhone.contains { !$0.isLinked }, "\(seenByPhone)")

        // Remove the phone: its leaf goes, it learns it is out, and reads nothing after.
        laptop.dispatch(.removeDevice(id: phoneID))
        try await laptop.waitFor("phone removed") { state in
            state.lastOutcome?.operation == .removeDevice && state.lastOutcome?.code == .ok
                && !state.devices.list.contains { $0.id == phoneID && $0.isLinked }
        }
        try await phone.waitFor("phone out of notes") { state in
            state.chatList.first { $0.chatID == notesID }?.isMember == false
        }
        laptop.dispatch(.openChat(chatID: notesID))
        laptop.dispatch(.sendMessage(chatID: notesID, content: "after removal"))
        try await laptop.waitFor("last note sent") { state in
            state.currentChat?.messages.contains { $0.content == "after removal" && $0.delivery == .sent } == true
        }
        try await Task.sleep(for: .seconds(3))
        #expect(phone.state().currentChat?.messages.contains { $0.content == "after removal" } == false)
        #expect(phone.state().chatList.first { $0.chatID == notesID }?.lastMessage != "after removal")
        // The stranger never saw any of it.
        #expect(!stranger.state().chatList.contains { $0.chatID == notesID })
    }
}
