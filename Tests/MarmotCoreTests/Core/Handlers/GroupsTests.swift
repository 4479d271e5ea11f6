import Foundation
import MarmotCore
import Nostr
import Testing

/// Group actions: the core checks input, calls the messaging layer, and reports outcomes.
@Suite("Groups") struct GroupsTests {
    @Test("creating a group opens it, as a group with its name and members")
    func createOpens() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let bob = Keys.generate().publicKey, carol = Keys.generate().publicKey
        h.dispatch(.createGroup(name: "  Climbing\n crew ", memberNpubs: [bob.npub, " \(carol.npub) "]))
        try await h.waitFor("group open") { $0.currentChat?.isGroup == true }
        let chat = try #require(h.state().currentChat)
        #expect(chat.displayName == "Climbing crew")
        #expect(chat.memberCount == 3)
        #expect(chat.canManage)
        #expect(h.state().lastOutcome?.operation == .createGroup && h.state().lastOutcome?.code == .ok)
        #expect(!h.state().busy.creatingChat)
    }

    @Test("bad npubs, one's own npub and an empty list are refused before anything is sent")
    func refusals() async throws {
        let h = AppHarness()
        let me = try await h.createAccount()
        h.dispatch(.createGroup(name: "x", memberNpubs: ["npub1nope"]))
        try await h.waitFor("invalid") { $0.lastOutcome?.code == .invalidNpub }
        h.dispatch(.createGroup(name: "x", memberNpubs: [me.npub]))
        try await h.waitFor("own") { $0.lastOutcome?.code == .ownNpub }
        h.dispatch(.createGroup(name: "x", memberNpubs: []))
        try await h.waitFor("empty") { $0.lastOutcome?.code == .invalidNpub && $0.lastOutcome?.message.contains("at least one") == true }
        #expect(h.state().chatList.isEmpty)
    }

    @Test("changes go to the messaging layer; a refusal is an outcome with the layer's reason")
    func changes() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let bob = Keys.generate().publicKey
        h.dispatch(.createGroup(name: "Crew", memberNpubs: [bob.npub]))
        try await h.waitFor("group open") { $0.currentChat?.isGroup == true }
        let id = try #require(h.state().currentChat?.chatID)
        let service = try #require(h.service)
        h.dispatch(.renameChat(chatID: id, name: "New"))
        h.dispatch(.removeMember(chatID: id, npub: bob.npub))
        h.dispatch(.leaveChat(chatID: id))
        try await waitUntil("three changes") { await service.groupChanges.count == 3 }
        let changes = await service.groupChanges.map(\.1)
        #expect(Set(changes.map { "\($0)" }) == Set([GroupChange.rename("New"), .remove(bob), .leave].map { "\($0)" }))
        await service.failGroups("Only an admin of this chat can do that")
        h.dispatch(.addMembers(chatID: id, npubs: [Keys.generate().publicKey.npub]))
        try await h.waitFor("refused") { $0.lastOutcome?.operation == .changeGroup && $0.lastOutcome?.isSuccess == false }
        #expect(h.state().toast?.contains("Only an admin") == true)
        h.dispatch(.renameChat(chatID: "unknown", name: "x"))
        try await h.waitFor("unknown chat") { $0.lastOutcome?.code == .unknownChat }
    }

    @Test("a chat we were removed from stays listed and readable, marked, and refuses sends and changes")
    func removedChatIsNotWritable() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let bob = Keys.generate().publicKey
        h.dispatch(.createGroup(name: "Crew", memberNpubs: [bob.npub]))
        try await h.waitFor("group open") { $0.currentChat?.isGroup == true }
        let id = try #require(h.state().currentChat?.chatID)
        let service = try #require(h.service)
        var info = ChatInfo(chatID: id, peer: bob, createdAt: 1, members: [bob], isDirect: false, groupName: "Crew")
        info.isMember = false
        await service.emit(.chatUpdated(info))
        try await h.waitFor("marked") { $0.chatList.first { $0.chatID == id }?.isMember == false }
        #expect(h.state().chatList.first { $0.chatID == id }?.membershipLabel == "left")
        let view = try #require(h.state().currentChat)
        #expect(!view.isMember && !view.canSend(draft: "hello") && !view.canManage)
        h.dispatch(.sendMessage(chatID: id, content: "hello"))
        try await h.waitFor("refused send") { $0.lastOutcome?.operation == .sendMessage && $0.lastOutcome?.code == .notMember }
        h.dispatch(.renameChat(chatID: id, name: "x"))
        try await h.waitFor("refused change") { $0.lastOutcome?.operation == .changeGroup && $0.lastOutcome?.code == .notMember }
        #expect(await service.groupChanges.isEmpty)
    }
}
