import Foundation
import Testing
import Nostr
@testable import MarmotCore

@Suite("AppAction")
struct AppActionTests {
    static let nsec = Keys.generate().secretKey.nsecEncoded()
    static let secretText = "meet me at the old mill at 9"

    static let actions: [AppAction] = [
        .createAccount, .login(nsec: nsec), .restoreSession(nsec: nsec), .logout,
        .pushScreen(.newChat), .pushScreen(.chat(chatID: "c1")), .updateScreenStack([.chat(chatID: "c1"), .newChat]),
        .createChat(peerNpub: Keys.generate().publicKey.npub),
        .sendMessage(chatID: "c1", content: secretText),
        .retryMessage(chatID: "c1", messageID: "m1"), .openChat(chatID: "c1"),
        .loadOlderMessages(chatID: "c1", beforeMessageID: "m1", limit: 50), .clearToast, .foregrounded,
    ]

    @Test("tags, descriptions and dumps never contain the nsec or message text", arguments: actions)
    func tagsAreLogSafe(action: AppAction) {
        var dumped = ""
        dump(action, to: &dumped)
        for text in [action.tag, action.description, String(reflecting: action), "\(action)", dumped] {
            #expect(!text.contains(Self.nsec))
            #expect(!text.contains(Self.secretText))
            #expect(!text.contains("nsec1"))
        }
        #expect(action.description == action.tag)
    }

    @Test("tags name the action and its identifiers")
    func tagContents() {
        #expect(AppAction.login(nsec: Self.nsec).tag == "login")
        #expect(AppAction.sendMessage(chatID: "c1", content: Self.secretText).tag == "sendMessage(chat: c1, chars: 28)")
        #expect(AppAction.pushScreen(.chat(chatID: "c9")).tag == "pushScreen(chat(c9))")
    }
}
