import Foundation
import Nostr
import NostrClient
import TestSupport
import Testing

/// Our client's NIP-42 against rust-nostr's relay (issue 44): `auth_dm` serves gift wraps only to
/// their authenticated recipient, `both` wants AUTH for every read and write.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct AuthRelayTests {
    static func client(_ url: String, _ authenticator: RelayAuthenticator?) async throws -> RelayClient {
        let client = RelayClient(url: url, authenticator: authenticator, logger: testLogger("client"))
        await client.connect()
        _ = try await withTimeout(60, "connect to \(url)") {
            for await status in await client.statusUpdates() where status == .connected { return true }
            return false
        }
        return client
    }

    /// The first message of a subscription that is an event, or the CLOSED that ended it.
    static func firstAnswer(_ subscription: RelaySubscription) async throws -> SubscriptionMessage? {
        try await withTimeout(60, "an answer") {
            for await message in subscription where message != .endOfStoredEvents { return message }
            return nil
        }
    }

    static func wrap(to recipient: PublicKey) throws -> Event {
        let author = Keys.generate()
        let rumor = UnsignedEvent(pubkey: author.publicKey, createdAt: UnsignedEvent.now(), kind: .welcome, content: "welcome")
        return try GiftWrap.wrap(rumor, author: author, recipient: recipient)
    }

    @Test(.enabled(if: AuthRelay.shouldRun, "interop venv not found"))
    func authDMServesGiftWrapsToTheirAuthenticatedRecipientOnly() async throws {
        let (relay, url) = try await AuthRelay.start(.authDM)
        defer { Task { await relay.stop() } }
        let recipient = Keys.generate()
        let wrap = try Self.wrap(to: recipient.publicKey)
        let publisher = try await Self.client(url, nil)
        #expect(await publisher.publish(wrap).isAccepted)
        let filter = Filter(kinds: [.giftWrap], tags: ["p": [recipient.publicKey.hex]])

        // The recipient answers the challenge with its key and gets the wrap after one retry.
        let owner = try await Self.client(url, .signing(with: recipient))
        #expect(try await Self.firstAnswer(await owner.subscribe([filter])) == .event(wrap))
        #expect(await owner.report.auth == .authenticated)

        // No signer: the relay's refusal is reported as it is; a throw-away key is not the recipient.
        let anonymous = try await Self.client(url, nil)
        guard case .closed(let reason)? = try await Self.firstAnswer(await anonymous.subscribe([filter])) else {
            Issue.record("an unauthenticated client got the gift wrap")
            return
        }
        #expect(reason.hasPrefix("auth-required:"), "\(reason)")
        let stranger = try await Self.client(url, .throwaway)
        guard case .closed? = try await Self.firstAnswer(await stranger.subscribe([filter])) else {
            Issue.record("a throw-away key got someone else's gift wrap")
            return
        }
        #expect(await stranger.report.auth == .authenticated)
        for client in [publisher, owner, anonymous, stranger] { await client.disconnect() }
    }

    @Test(.enabled(if: AuthRelay.shouldRun, "interop venv not found"))
    func bothModeNeedsAuthForReadsAndWrites() async throws {
        let (relay, url) = try await AuthRelay.start(.both)
        defer { Task { await relay.stop() } }
        let note = try UnsignedEvent(pubkey: TestEvents.alice.publicKey, createdAt: UnsignedEvent.now(), kind: .textNote,
                                     content: "members only").signed(with: TestEvents.alice)

        let anonymous = try await Self.client(url, nil)
        guard case .rejected(let reason) = await anonymous.publish(note) else {
            Issue.record("published without AUTH")
            return
        }
        #expect(reason.hasPrefix("auth-required:"), "\(reason)")

        // A throw-away key is enough here: the publish is retried once after AUTH, then read back.
        let member = try await Self.client(url, .throwaway)
        #expect(await member.publish(note).isAccepted)
        #expect(try await Self.firstAnswer(await member.subscribe([Filter(ids: [note.id])])) == .event(note))
        #expect(await member.report.auth == .authenticated)
        for client in [anonymous, member] { await client.disconnect() }
    }
}
