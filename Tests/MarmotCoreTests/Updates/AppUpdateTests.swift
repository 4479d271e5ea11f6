import Testing
import Nostr
@testable import MarmotCore

@Suite("AppUpdate")
struct AppUpdateTests {
    @Test("accountCreated prints everything but the nsec")
    func accountCreatedRedacts() {
        let keys = Keys.generate()
        let nsec = keys.secretKey.nsecEncoded()
        let update = AppUpdate.accountCreated(rev: 7, nsec: nsec, pubkey: keys.publicKey.hex, npub: keys.publicKey.npub)
        var dumped = ""
        dump(update, to: &dumped)
        for text in [update.description, String(reflecting: update), "\(update)", dumped] {
            #expect(!text.contains(nsec))
            #expect(text.contains("redacted"))
        }
        #expect(update.description.contains(keys.publicKey.npub))
        #expect(update.rev == 7)
    }

    @Test("every variant reports its rev")
    func revs() {
        var state = AppState.initial
        state.rev = 3
        #expect(AppUpdate.fullState(state).rev == 3)
        #expect(AppUpdate.routerChanged(rev: 4, router: Router(defaultScreen: .login)).rev == 4)
        #expect(AppUpdate.authChanged(rev: 5, auth: .loggedOut).rev == 5)
        #expect(AppUpdate.chatListChanged(rev: 6, chatList: []).rev == 6)
        #expect(AppUpdate.currentChatChanged(rev: 7, currentChat: nil).rev == 7)
        #expect(AppUpdate.toastChanged(rev: 8, toast: "x").rev == 8)
        #expect(AppUpdate.busyChanged(rev: 9, busy: BusyState()).rev == 9)
    }

    @Test("descriptions of state updates show no message text")
    func stateUpdatesAreLogSafe() {
        let message = ChatMessage(id: "m", senderPubkey: "p", content: "private words", timestamp: 0, isMine: true,
                                  delivery: .pending, displayTimestamp: "00:00")
        let chat = ChatViewState(chatID: "c", peerNpub: "npub1x", peerName: nil, displayName: "n", messages: [message],
                                 canLoadOlder: false)
        let update = AppUpdate.currentChatChanged(rev: 1, currentChat: chat)
        #expect(!update.description.contains("private words"))
        #expect(update.description == "currentChatChanged(rev: 1, chat: c, messages: 1)")
    }
}
