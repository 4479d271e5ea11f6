import Foundation
import Nostr

/// `marmot`: the terminal client.
///
/// Until the app core lands, running it shows the Nostr layer end to end: two fresh identities, a
/// chat rumor sealed and gift-wrapped (NIP-59) from Alice to Bob, and Bob unwrapping it.
@main
struct MarmotCommand {
    static func main() {
        do {
            try demo()
        } catch {
            FileHandle.standardError.write(Data("marmot: \(error)\n".utf8))
            exit(1)
        }
    }

    static func demo() throws {
        let alice = Keys.generate()
        let bob = Keys.generate()
        print("Marmot (Nostr layer preview; chats arrive with the app core)")
        print("  alice  \(alice.publicKey.npub)")
        print("  bob    \(bob.publicKey.npub)")

        let rumor = UnsignedEvent(pubkey: alice.publicKey, kind: .chatMessage, content: "hello bob")
        let wrap = try GiftWrap.wrap(rumor, author: alice, recipient: bob.publicKey)
        print("  gift wrap \(wrap.id) kind \(wrap.kind.rawValue), signed by a throwaway key, \(wrap.content.utf8.count) bytes of NIP-44 payload")

        let opened = try GiftWrap.unwrap(wrap, recipient: bob.secretKey)
        let fromAlice = opened.sender == alice.publicKey
        print("  bob unwrapped: \"\(opened.rumor.content)\" from \(fromAlice ? "alice" : "someone else") (seal signature verified)")
    }
}
