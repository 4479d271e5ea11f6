import Foundation
import MarmotCore
import Nostr
import NostrClient
import NostrRelay
import Testing

/// Our other devices in other chats (issue 29), through the real apps: two installations of one
/// account (laptop, phone) and a third party (carol) on one embedded relay.
@Suite(.serialized, .timeLimit(.minutes(5))) struct MarmotDeviceGroupsTests {
    /// The laptop links the phone, then adds it to its 1:1 chat with Carol (`addMyDevices`). The
    /// phone joins without being asked; on all three the chat stays a 1:1 with the right peer and
    /// title, and the member list has one entry per person (the laptop's account with 2 devices).
    /// Carol's message reaches both devices; the phone's message is the laptop's own ("isMine")
    /// and Carol's peer's. Removing the phone reports both chats removed (Notes and Carol's) in the
    /// core state, and Carol's list shows one device again.
    @Test func addMyDevicesToADirectChatThenRemoveTheDeviceFromBoth() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (_, relay) = try await world.startRelay()
        let laptop = world.app("laptop", relays: [relay])
        let carol = world.app("carol", relays: [relay])
        let keys = try await laptop.createAccount()
        let carolKeys = try await carol.createAccount()
        let myNpub = keys.publicKey.npub
        let carolNpub = carolKeys.publicKey.npub

        laptop.dispatch(.openNotes)
        try await laptop.waitFor("notes open") { $0.currentChat?.isNotes == true }
        let notesID = try #require(laptop.state().currentChat?.chatID)
        let phone = world.app("phone", relays: [relay])
        phone.dispatch(.login(nsec: keys.secretKey.nsecEncoded()))
        try await phone.waitFor("phone logged in") { $0.auth.isLoggedIn && $0.network.keyPackagePublished == true }
        try await waitUntil("phone waiting on the laptop", timeout: .seconds(60)) {
            let mark = laptop.state().lastOutcome?.sequence ?? 0
            laptop.dispatch(.loadDevices)
            try await laptop.waitFor("device list") { ($0.lastOutcome?.sequence ?? 0) > mark && !$0.devices.loading }
            return laptop.state().devices.list.contains { !$0.isLinked }
        }
        let phoneID = try #require(laptop.state().devices.list.first { !$0.isLinked }?.id)
        laptop.dispatch(.linkDevice(id: phoneID))
        try await phone.waitFor("phone has notes") { $0.chatList.contains { $0.chatID == notesID && $0.isNotes } }

        // A 1:1 chat with Carol, before the phone is in it.
        try await LiveWorld.waitForKeyPackage(of: carolKeys.publicKey, on: relay)
        laptop.dispatch(.createChat(peerNpub: carolNpub))
        try await laptop.waitFor("chat with carol") { $0.currentChat?.peerNpub == carolNpub }
        let chatID = try #require(laptop.state().currentChat?.chatID)
        let titleBefore = try #require(laptop.state().currentChat?.displayName)
        try await carol.acceptInvite(from: keys.publicKey)

        // Add my other devices; the phone's fresh key package (after its Notes join) may take a moment.
        try await waitUntil("phone added to the chat", timeout: .seconds(60)) {
            let mark = laptop.state().lastOutcome?.sequence ?? 0
            laptop.dispatch(.addMyDevices(chatID: chatID))
            try await laptop.waitFor("add outcome") { ($0.lastOutcome?.sequence ?? 0) > mark && $0.lastOutcome?.operation == .addMyDevices }
            if laptop.state().lastOutcome?.code != .ok { try await Task.sleep(for: .milliseconds(500)) }
            return laptop.state().lastOutcome?.code == .ok
        }
        #expect(laptop.state().lastOutcome?.message.contains(phoneID) == true)
        // Once in, there is nothing more to add.
        let again = laptop.state().lastOutcome?.sequence ?? 0
        laptop.dispatch(.addMyDevices(chatID: chatID))
        try await laptop.waitFor("second add refused") { ($0.lastOutcome?.sequence ?? 0) > again }
        #expect(laptop.state().lastOutcome?.code == .unknownDevice)

        try await phone.waitFor("phone in the chat") { state in
            state.chatList.contains { $0.chatID == chatID && $0.isMember }
        }
        #expect(phone.state().invites.isEmpty)
        let phoneRow = try #require(phone.state().chatList.first { $0.chatID == chatID })
        #expect(phoneRow.peerNpub == carolNpub)
        #expect(!phoneRow.isGroup)
        #expect(phoneRow.memberCount == 2)

        // The laptop: still a 1:1 with Carol, same title; members grouped by account.
        laptop.dispatch(.openChat(chatID: chatID))
        try await laptop.waitFor("laptop sees 2 of its devices") { state in
            state.currentChat?.chatID == chatID && state.currentChat?.members.first { $0.isMe }?.deviceCount == 2
        }
        let laptopView = try #require(laptop.state().currentChat)
        #expect(laptopView.peerNpub == carolNpub)
        #expect(!laptopView.isGroup)
        #expect(laptopView.displayName == titleBefore)
        #expect(laptopView.memberCount == 2)
        #expect(laptopView.memberNpubs == [carolNpub])
        #expect(laptopView.members.map(\.npub) == [myNpub, carolNpub])
        #expect(laptopView.members.first { $0.isMe }?.devicesLabel == "2 devices")

        // Carol: one person (the laptop's account) with two devices, still her 1:1.
        carol.dispatch(.openChat(chatID: chatID))
        try await carol.waitFor("carol sees 2 devices of the laptop's account") { state in
            state.currentChat?.chatID == chatID && state.currentChat?.members.first { $0.npub == myNpub }?.deviceCount == 2
        }
        let carolView = try #require(carol.state().currentChat)
        #expect(carolView.peerNpub == myNpub)
        #expect(!carolView.isGroup)
        #expect(carolView.memberCount == 2)
        #expect(carolView.members.count == 2)
        // Her system line says a device was added, not that the laptop's account added itself.
        #expect(carolView.messages.contains { $0.kind == .system && $0.content.hasSuffix(" added a device") })

        carol.dispatch(.sendMessage(chatID: chatID, content: "hi you two"))
        try await laptop.waitFor("laptop reads carol") { $0.currentChat?.messages.contains { $0.content == "hi you two" } == true }
        try await phone.waitFor("phone reads carol") { $0.chatList.first { $0.chatID == chatID }?.lastMessage == "hi you two" }
        phone.dispatch(.sendMessage(chatID: chatID, content: "from the phone"))
        try await laptop.waitFor("laptop reads the phone") { state in
            state.currentChat?.messages.contains { $0.content == "from the phone" } == true
        }
        #expect(laptop.state().currentChat?.messages.first { $0.content == "from the phone" }?.isMine == true)
        try await carol.waitFor("carol reads the phone") { $0.currentChat?.messages.contains { $0.content == "from the phone" } == true }
        let onCarol = try #require(carol.state().currentChat?.messages.first { $0.content == "from the phone" })
        #expect(!onCarol.isMine)
        #expect(onCarol.senderPubkey == keys.publicKey.hex)

        // Remove the phone: out of Notes and of Carol's chat, reported per chat.
        laptop.dispatch(.removeDevice(id: phoneID))
        try await laptop.waitFor("phone removed") { state in
            state.lastOutcome?.operation == .removeDevice && !state.devices.loading
        }
        let outcome = try #require(laptop.state().lastOutcome)
        #expect(outcome.code == .ok)
        #expect(outcome.message == "Device removed from 2 chats")
        let removal = laptop.state().devices.lastRemoval
        #expect(removal.count == 2)
        #expect(removal.allSatisfy { $0.status == .removed })
        #expect(removal.first?.isNotes == true && removal.first?.chatID == notesID)
        #expect(removal.last?.chatID == chatID)
        try await carol.waitFor("carol sees one device again") { state in
            state.currentChat?.members.first { $0.npub == myNpub }?.deviceCount == 1
        }
        try await phone.waitFor("phone out of both") { state in
            state.chatList.first { $0.chatID == chatID }?.isMember == false
                && state.chatList.first { $0.chatID == notesID }?.isMember == false
        }
        carol.dispatch(.sendMessage(chatID: chatID, content: "phone gone"))
        try await laptop.waitFor("laptop reads carol after") { $0.currentChat?.messages.contains { $0.content == "phone gone" } == true }
        try await Task.sleep(for: .seconds(2))
        #expect(phone.state().chatList.first { $0.chatID == chatID }?.lastMessage != "phone gone")
    }
}
