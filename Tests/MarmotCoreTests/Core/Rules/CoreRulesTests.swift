import Foundation
import Nostr
import Testing
@testable import MarmotCore

/// The decisions issue 16 moved out of the renderers, tested where they now live: the core.
@Suite("Core rules: outcomes")
struct OutcomeCodeTests {
    @Test("a refused login records invalid_nsec for the login operation, and the toast is its message")
    func invalidNsec() async throws {
        let h = AppHarness(messaging: false)
        h.dispatch(.login(nsec: "nsec1notakey"))
        try await h.waitFor("outcome") { $0.lastOutcome != nil && !$0.busy.loggingIn }
        let outcome = try #require(h.state().lastOutcome)
        #expect(outcome.operation == .login)
        #expect(outcome.code == .invalidNsec)
        #expect(outcome.code.rawValue == "invalid_nsec")
        #expect(h.state().toast == outcome.message)
        #expect(!h.state().auth.isLoggedIn)
    }

    @Test("chat creation: invalid_npub, own_npub, messaging_unavailable; each outcome numbered after the last")
    func createChatCodes() async throws {
        let h = AppHarness(messaging: false)
        let (_, npub) = try await h.createAccount()
        let afterLogin = try #require(h.state().lastOutcome)
        #expect(afterLogin.operation == .createAccount && afterLogin.code == .ok && h.state().toast == nil)

        h.dispatch(.createChat(peerNpub: "npub1nope"))
        try await h.waitFor("invalid") { $0.lastOutcome?.code == .invalidNpub }
        let invalid = try #require(h.state().lastOutcome)
        #expect(invalid.operation == .createChat && invalid.sequence > afterLogin.sequence)

        h.dispatch(.createChat(peerNpub: npub))
        try await h.waitFor("own") { $0.lastOutcome?.code == .ownNpub }

        h.dispatch(.createChat(peerNpub: Keys.generate().publicKey.npub))
        try await h.waitFor("unavailable") { $0.lastOutcome?.code == .messagingUnavailable }
        #expect(h.state().toast == AppCore.messagingUnavailable)
    }

    @Test("a service failure keeps its reason as the message and gets the generic code")
    func serviceFailure() async throws {
        let h = AppHarness()
        try await h.createAccount()
        await h.service?.failCreateChat("no key package found")
        h.dispatch(.createChat(peerNpub: Keys.generate().publicKey.npub))
        try await h.waitFor("failed") { $0.lastOutcome?.operation == .createChat && !$0.busy.creatingChat }
        #expect(h.state().lastOutcome?.code == .failed)
        #expect(h.state().lastOutcome?.message == "Could not create chat: no key package found")
    }

    @Test("the Marmot layer's errors map to stable codes")
    func marmotErrorCodes() {
        let cases: [(MarmotMessagingError, String)] = [
            (.noKeyPackage, "no_key_package"), (.noRelayReachable, "relay_unreachable"), (.noRelays, "relay_unreachable"),
            (.notPublished("x"), "not_sent"), (.unknownInvite, "unknown_invite"), (.cannotChatWithSelf, "own_npub"),
            (.chatInactive, "chat_inactive"), (.notAdmin, "not_admin"), (.commitPending, "commit_pending"),
            (.storage("x"), "storage_failed"), (.other("x"), "failed"),
        ]
        for (error, raw) in cases {
            #expect(ServiceError(error).code.rawValue == raw, "\(error)")
            #expect(ServiceError(error).reason == error.errorDescription)
        }
    }

    @Test("a failed send records not_sent for send_message without a toast (the message shows it)")
    func sendFailure() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        await h.service?.script([.failed(reason: "relay said no")])
        h.dispatch(.sendMessage(chatID: chatID, content: "hello"))
        try await h.waitFor("failed") { $0.lastOutcome?.operation == .sendMessage }
        let state = h.state()
        #expect(state.lastOutcome?.code == .notSent)
        #expect(state.toast == nil)
        let message = try #require(state.currentChat?.messages.last)
        #expect(message.canRetry)
        #expect(message.deliveryMark == "✗ not sent")
        #expect(message.failureReason == "relay said no")
    }
}

@Suite("Core rules: toast expiry")
struct ToastExpiryTests {
    @Test("the core clears a toast after toastDuration on its timer; the outcome stays")
    func expires() async throws {
        let h = AppHarness(messaging: false)
        try await h.createAccount()
        h.dispatch(.createChat(peerNpub: "npub1nope"))
        try await h.waitFor("toast") { $0.toast != nil }
        try await waitUntil("timer armed") { h.timer.waiting == 1 }
        #expect(h.timer.durations == [.seconds(3)])
        h.timer.fire()
        try await h.waitFor("cleared") { $0.toast == nil }
        #expect(h.state().lastOutcome?.code == .invalidNpub)
    }

    @Test("a replaced toast is not cleared by the first toast's timer")
    func replacedToastKeepsItsOwnTimer() async throws {
        let h = AppHarness(messaging: false)
        try await h.createAccount()
        h.dispatch(.createChat(peerNpub: "npub1nope"))
        try await h.waitFor("first") { $0.lastOutcome?.code == .invalidNpub }
        try await waitUntil("first timer") { h.timer.waiting == 1 }
        let first = h.timer.takeOldest()
        h.dispatch(.createChat(peerNpub: "npub1again"))
        try await waitUntil("second timer") { h.timer.waiting == 1 }
        let seq = h.state().lastOutcome?.sequence
        first?.resume()
        // Give the stale expiry every chance to arrive, then check the toast is still there.
        h.dispatch(.pushScreen(.newChat))
        try await h.waitFor("marker") { $0.router.topScreen == .newChat }
        #expect(h.state().toast != nil && h.state().lastOutcome?.sequence == seq)
        h.timer.fire()
        try await h.waitFor("cleared") { $0.toast == nil }
    }
}

@Suite("Core rules: paging")
struct PagingRuleTests {
    @Test("loadOlder without a size: the core pages by 50 and says when no more exist")
    func loadOlder() async throws {
        let peer = Keys.generate().publicKey
        let start = AppHarness.nowSeconds - 10_000
        let h = AppHarness { _ in
            [ChatSeed(chatID: "long", peer: peer, peerName: nil, createdAt: start - 1,
                      messages: (0..<120).map { (fromPeer: true, text: "m\($0)", at: start + Int64($0)) })]
        }
        try await h.createAccount()
        try await h.waitFor("listed") { $0.chatList.count == 1 }
        h.dispatch(.openChat(chatID: "long"))
        try await h.waitFor("first page") { $0.currentChat?.messages.count == 50 }
        var chat = try #require(h.state().currentChat)
        #expect(chat.canLoadOlder && !chat.isLoadingOlder)
        #expect(chat.shouldLoadOlder(whenShowing: try #require(chat.messages.first?.id)))
        #expect(!chat.shouldLoadOlder(whenShowing: try #require(chat.messages.last?.id)))

        h.dispatch(.loadOlder(chatID: "long"))
        h.dispatch(.loadOlder(chatID: "long"))
        try await h.waitFor("second page") { $0.currentChat?.messages.count == 100 }
        h.dispatch(.loadOlder(chatID: "long"))
        try await h.waitFor("last page") { $0.currentChat?.messages.count == 120 }
        chat = try #require(h.state().currentChat)
        #expect(!chat.canLoadOlder)
        h.dispatch(.loadOlder(chatID: "long"))
        h.dispatch(.pushScreen(.newChat))
        try await h.waitFor("marker") { $0.router.topScreen == .newChat }
        let requests = await h.service?.pageRequests ?? []
        #expect(requests.map(\.limit) == [50, 50, 50])
        #expect(requests.count == 3)
    }

    @Test("member count and last message kind come from the core")
    func counts() async throws {
        let h = AppHarness()
        try await h.createAccount()
        let chatID = try await h.createChat()
        #expect(h.state().currentChat?.memberCount == 2)
        #expect(h.state().chatList.first?.lastMessageKind == nil)
        h.dispatch(.sendMessage(chatID: chatID, content: "hi"))
        try await h.waitFor("sent") { $0.chatList.first?.lastMessageKind == .text }
        #expect(h.state().currentChat?.canSend(draft: "  \n ") == false)
        #expect(h.state().currentChat?.canSend(draft: " x ") == true)
    }
}

@Suite("Core rules: sync status")
struct SyncStatusTests {
    @Test("connecting at login, live once the service caught up and chats are listed, invitations loaded")
    func caughtUp() async throws {
        let h = AppHarness()
        try await h.createAccount()
        #expect(!h.state().network.isCaughtUp)
        #expect([.connecting, .catchingUp].contains(h.state().network.sync))
        await h.service?.emit(.relayStatus(RelayStatus(connected: 1, total: 1)))
        try await h.waitFor("catching up") { $0.network.sync == .catchingUp }
        await h.service?.finishCatchUp()
        try await h.waitFor("live") { $0.network.isCaughtUp }
        #expect(h.state().network.sync == .live && h.state().network.invitesLoaded)
        // A relay going down later does not undo the catch-up.
        await h.service?.emit(.relayStatus(RelayStatus(connected: 0, total: 1)))
        try await h.waitFor("offline") { $0.network.connectedRelays == 0 }
        #expect(h.state().network.sync == .live)
    }

    @Test("without a messaging service the sync status stays idle")
    func idle() async throws {
        let h = AppHarness(messaging: false)
        try await h.createAccount()
        #expect(h.state().network.sync == .idle)
    }
}

@Suite("Core rules: update contract")
struct UpdateContractTests {
    @Test("login emits exactly [busyChanged, secretAccepted, fullState]; logout [secretForgotten, fullState]")
    func loginAndLogoutStreams() async throws {
        let h = AppHarness(messaging: false)
        let keys = Keys.generate()
        h.dispatch(.login(nsec: keys.secretKey.nsecEncoded()))
        try await h.waitFor("logged in") { $0.auth.isLoggedIn && !$0.busy.loggingIn }
        try await h.waitForListener()
        let login = h.recorder.updates
        #expect(login.count == 3, "\(login)")
        #expect(login.first == .busyChanged(rev: 1, busy: BusyState(loggingIn: true)))
        #expect(login.dropFirst().first == .secretAccepted(rev: 2, nsec: keys.secretKey.nsecEncoded(), npub: keys.publicKey.npub))
        guard case .fullState(let full) = login.last else {
            Issue.record("expected fullState, got \(String(describing: login.last))")
            return
        }
        #expect(full.rev == 3 && full.auth.isLoggedIn && full.router.defaultScreen == .chatList)
        #expect(full.lastOutcome?.code == .ok && full.lastOutcome?.operation == .login)

        h.dispatch(.logout)
        try await h.waitFor("logged out") { !$0.auth.isLoggedIn }
        try await h.waitForListener()
        let logout = Array(h.recorder.updates.dropFirst(3))
        #expect(logout.count == 2, "\(logout)")
        #expect(logout.first == .secretForgotten(rev: 4))
        guard case .fullState(let out) = logout.last else {
            Issue.record("expected fullState, got \(String(describing: logout.last))")
            return
        }
        #expect(out.rev == 5 && out.auth == .loggedOut && out.router.defaultScreen == .login && out.lastOutcome == nil)
        #expect(h.recorder.mirror(from: .initial) == h.state())
    }

    @Test("a refused login hands out no secret")
    func refusedLoginNoSecret() async throws {
        let h = AppHarness(messaging: false)
        h.dispatch(.login(nsec: "nsec1bad"))
        try await h.waitFor("refused") { $0.lastOutcome != nil }
        try await h.waitForListener()
        #expect(!h.recorder.updates.contains { $0.isSideEffect })
    }

    @Test("exportSecret hands the session's nsec out as a side effect; printing it redacts the nsec")
    func exportSecret() async throws {
        let h = AppHarness(messaging: false)
        let keys = Keys.generate()
        h.dispatch(.exportSecret)
        try await h.waitFor("refused") { $0.lastOutcome?.operation == .exportSecret }
        h.dispatch(.login(nsec: keys.secretKey.nsecEncoded()))
        try await h.waitFor("logged in") { $0.auth.isLoggedIn }
        h.dispatch(.exportSecret)
        try await waitUntil("exported") {
            h.recorder.updates.contains { if case .secretExported = $0 { true } else { false } }
        }
        let exported = try #require(h.recorder.updates.last { if case .secretExported = $0 { true } else { false } })
        #expect(exported == .secretExported(rev: exported.rev, nsec: keys.secretKey.nsecEncoded()))
        #expect(!exported.description.contains("nsec1"))
    }
}

@Suite("Core rules: display")
struct DisplayRuleTests {
    @Test("busy text by priority, short npub, delivery marks")
    func strings() {
        #expect(BusyState().statusText == nil)
        #expect(BusyState(loggingIn: true, creatingChat: true).statusText == "Logging in…")
        #expect(BusyState(creatingChat: true).statusText == "Creating chat…")
        #expect(BusyState(answeringInvites: ["i"]).statusText == "Answering invitation…")
        #expect(!BusyState(creatingChat: true).canCreateChat(peerNpub: "npub1x"))
        #expect(!BusyState().canCreateChat(peerNpub: "  "))
        #expect(!BusyState(loggingIn: true).canLogin(nsec: "nsec1x"))
        let npub = Keys.generate().publicKey.npub
        let short = AuthState.loggedIn(npub: npub, pubkey: "").shortNpub
        #expect(short == "\(npub.prefix(9))…\(npub.suffix(4))")
        #expect(AuthState.loggedOut.shortNpub == nil)
        #expect(DisplayFormatter.deliveryMark(.pending, isMine: true, kind: .text) == "sending…")
        #expect(DisplayFormatter.deliveryMark(.sent, isMine: true, kind: .text) == "✓")
        #expect(DisplayFormatter.deliveryMark(.sent, isMine: false, kind: .text) == "")
        #expect(DisplayFormatter.deliveryMark(.sent, isMine: true, kind: .system) == "")
        #expect(SyncStatus.catchingUp.statusText == "Catching up…")
    }
}
