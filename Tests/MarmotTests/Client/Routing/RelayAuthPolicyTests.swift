import Nostr
import NostrClient
import Testing
@testable import Marmot

/// The NIP-42 key policy (issue 44, README "Security model"): the account key answers only on the
/// user's own relays, a fresh throw-away key everywhere else, judged when the challenge comes.
@Suite struct RelayAuthPolicyTests {
    static let own = "wss://mine.example"
    static let theirs = "wss://theirs.example"

    @Test func theAccountKeyAnswersOnlyOnOwnRelays() async throws {
        let account = Keys.generate()
        let policy = MarmotClient.relayAuthPolicy(keys: account) { $0 == Self.own }
        let mine = try #require(await policy(Self.own)?.answer(relay: Self.own, challenge: "c"))
        #expect(mine.pubkey == account.publicKey && mine.isAuthentication(challenge: "c", relay: Self.own))
        let first = try #require(await policy(Self.theirs)?.answer(relay: Self.theirs, challenge: "c"))
        let second = try #require(await policy(Self.theirs)?.answer(relay: Self.theirs, challenge: "c"))
        #expect(first.isAuthentication(challenge: "c", relay: Self.theirs))
        #expect(first.pubkey != account.publicKey && second.pubkey != account.publicKey && first.pubkey != second.pubkey)
    }

    @Test func aRelayIsJudgedWhenTheChallengeComes() async throws {
        let account = Keys.generate()
        let ours = OwnRelays()
        let policy = MarmotClient.relayAuthPolicy(keys: account) { await ours.contains($0) }
        let authenticator = try #require(policy(Self.theirs))
        #expect(await authenticator.answer(relay: Self.theirs, challenge: "a")?.pubkey != account.publicKey)
        await ours.add(Self.theirs)
        #expect(await authenticator.answer(relay: Self.theirs, challenge: "b")?.pubkey == account.publicKey)
    }
}

private actor OwnRelays {
    var urls: Set<String> = []
    func add(_ url: String) { urls.insert(url) }
    func contains(_ url: String) -> Bool { urls.contains(url) }
}
