import ArgumentParser
import Foundation
import Nostr

/// Shows the Nostr layer end to end until chats arrive with the app core: two fresh identities, a chat
/// rumor sealed and gift-wrapped (NIP-59) from Alice to Bob, and Bob unwrapping it.
struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Show two fresh identities exchanging a NIP-59 gift-wrapped message (offline)."
    )

    func run() throws {
        let alice = Keys.generate()
        let bob = Keys.generate()
        print("Marmot (Nostr layer preview; chats arrive with the app core)")
        print("  alice  \(alice.publicKey.npub)")
        print("  bob    \(bob.publicKey.npub)")

        let rumor = UnsignedEvent(pubkey: alice.publicKey, kind: .chatMessage, content: "hello bob")
        let wrap = try GiftWrap.wrap(rumor, author: alice, recipient: bob.publicKey)
        print("  gift wrap \(wrap.id) kind \(wrap.kind.rawValue), signed by a throwaway key, \(wrap.content.utf8.count) bytes of NIP-44 payload")

        let opened = try GiftWrap.unwrap(wrap, recipient: bob.secretKey)
        let sender = opened.sender == alice.publicKey ? "alice" : "someone else"
        print("  bob unwrapped: \"\(opened.rumor.content)\" from \(sender) (seal signature verified)")
    }
}
