import Nostr
@testable import NostrRelay
import Testing

/// The relay's NIP-42 decisions without sockets: which AUTH events authenticate, what an
/// unauthenticated or authenticated connection may write, ask for and receive, in each mode.
@Suite struct RelayAccessPolicyTests {
    static let now: Int64 = 1_800_000_000
    static let here = [RelayAddress.bound(host: "127.0.0.1", port: 7447)]
    static let alice = TestEvents.alice, bob = TestEvents.bob

    static func policy(_ mode: RelayAuthMode, writers: Set<PublicKey> = []) -> RelayAccessPolicy {
        RelayAccessPolicy(RelayAuthConfiguration(mode: mode, allowedWriters: writers))
    }

    static func auth(relay: String = "ws://127.0.0.1:7447", challenge: String = "c1", createdAt: Int64 = now,
                     kind: Kind = .clientAuthentication, keys: Keys = alice) throws -> Event {
        try UnsignedEvent(pubkey: keys.publicKey, createdAt: createdAt, kind: kind,
                          tags: [["relay", relay], ["challenge", challenge]], content: "").signed(with: keys)
    }

    static func outcome(_ policy: RelayAccessPolicy, _ event: Event, challenge: String? = "c1",
                        authenticated: Set<String> = []) -> RelayAccessPolicy.AuthOutcome {
        policy.authenticate(event, challenge: challenge, relays: here, now: now, authenticated: authenticated)
    }

    static func reason(_ outcome: RelayAccessPolicy.AuthOutcome) -> String? {
        if case .refused(let reason) = outcome { return reason }
        return nil
    }

    @Test func aGoodAnswerAuthenticatesItsPubkey() throws {
        let inbox = Self.policy(.inbox)
        #expect(Self.outcome(inbox, try Self.auth()) == .authenticated(Self.alice.publicKey.hex))
        // Loose relay URL comparison (NIP-42 allows normalisation): loopback names, case, slash, scheme.
        for relay in ["ws://localhost:7447/", "WS://LOCALHOST:7447", "wss://127.0.0.1:7447", "ws://[::1]:7447"] {
            #expect(Self.outcome(inbox, try Self.auth(relay: relay)) == .authenticated(Self.alice.publicKey.hex), "\(relay)")
        }
        // created_at a few minutes off either way is fine.
        #expect(Self.reason(Self.outcome(inbox, try Self.auth(createdAt: Self.now - 590))) == nil)
        #expect(Self.reason(Self.outcome(inbox, try Self.auth(createdAt: Self.now + 590))) == nil)
        // A second pubkey on the same connection (NIP-42: several may authenticate).
        #expect(Self.outcome(inbox, try Self.auth(keys: Self.bob), authenticated: [Self.alice.publicKey.hex])
                == .authenticated(Self.bob.publicKey.hex))
    }

    @Test func badAnswersAreRefusedWithTheirReason() throws {
        let all = Self.policy(.all)
        #expect(Self.reason(Self.outcome(all, try Self.auth(challenge: "other")))?.hasPrefix("invalid: the challenge") == true)
        #expect(Self.reason(Self.outcome(all, try Self.auth(relay: "wss://relay.example.com")))?.hasPrefix("invalid: the relay tag") == true)
        #expect(Self.reason(Self.outcome(all, try Self.auth(relay: "ws://127.0.0.1:7448")))?.hasPrefix("invalid: the relay tag") == true)
        #expect(Self.reason(Self.outcome(all, try Self.auth(relay: "not a url")))?.hasPrefix("invalid: the relay tag") == true)
        #expect(Self.reason(Self.outcome(all, try Self.auth(createdAt: Self.now - 601)))?.hasPrefix("invalid: created_at") == true)
        #expect(Self.reason(Self.outcome(all, try Self.auth(createdAt: Self.now + 601)))?.hasPrefix("invalid: created_at") == true)
        #expect(Self.reason(Self.outcome(all, try Self.auth(kind: .textNote)))?.hasPrefix("invalid: an AUTH event must be of kind 22242") == true)
        let good = try Self.auth()
        let forged = Event(id: good.id, pubkey: Self.bob.publicKey, createdAt: good.createdAt, kind: good.kind,
                           tags: good.tags, content: good.content, sig: good.sig)
        #expect(Self.reason(Self.outcome(all, forged)) == "invalid: bad signature")
        // No challenge sent (auth off): AUTH is not supported.
        #expect(Self.reason(Self.outcome(Self.policy(.none), good, challenge: nil))?.hasPrefix("restricted:") == true)
        let many = Set((0..<RelayAccessPolicy.maxPubkeysPerConnection).map { String(repeating: "\($0 % 10)", count: 64) + "\($0)" })
        #expect(Self.reason(Self.outcome(all, good, authenticated: many))?.hasPrefix("restricted: at most") == true)
    }

    @Test func relayAddressesCompareHostAndPort() {
        let bound = RelayAddress.bound(host: "127.0.0.1", port: 7447)
        #expect(RelayAddress(url: "ws://localhost:7447").map(bound.accepts) == true)
        #expect(RelayAddress(url: "ws://example.com:7447").map(bound.accepts) == false)
        let anyHost = RelayAddress.bound(host: "0.0.0.0", port: 7447)
        #expect(RelayAddress(url: "ws://192.168.1.5:7447").map(anyHost.accepts) == true)
        #expect(RelayAddress(url: "ws://192.168.1.5:80").map(anyHost.accepts) == false)
        let public_ = RelayAddress(url: "wss://Relay.Example.com/")!
        #expect(RelayAddress(url: "wss://relay.example.com:443").map(public_.accepts) == true)
        #expect(RelayAddress(url: "wss://relay.example.com.").map(public_.accepts) == true)
        #expect(RelayAddress(url: "ws://relay.example.com").map(public_.accepts) == false)
        #expect(RelayAddress(url: "ftp://relay.example.com") == nil)
    }

    @Test func writes() throws {
        let note = try TestEvents.make(createdAt: Self.now)
        let wrap = try TestEvents.make(kind: .giftWrap, tags: [.pubkey(Self.bob.publicKey)], createdAt: Self.now)
        let alice: Set = [Self.alice.publicKey.hex]
        // none and inbox: open (gift wraps too: anyone can send you an invitation).
        for mode in [RelayAuthMode.none, .inbox] {
            #expect(Self.policy(mode).writeRefusal(note, authenticated: []) == nil)
            #expect(Self.policy(mode).writeRefusal(wrap, authenticated: []) == nil)
        }
        #expect(Self.policy(.all).writeRefusal(note, authenticated: [])?.hasPrefix("auth-required:") == true)
        #expect(Self.policy(.all).writeRefusal(wrap, authenticated: alice) == nil)
        let listed = Self.policy(.all, writers: [Self.bob.publicKey])
        #expect(listed.writeRefusal(note, authenticated: alice)?.hasPrefix("restricted:") == true)
        #expect(listed.writeRefusal(note, authenticated: [])?.hasPrefix("auth-required:") == true)
        #expect(listed.writeRefusal(note, authenticated: alice.union([Self.bob.publicKey.hex])) == nil)
        // AUTH events are never taken as EVENTs (NIP-42: never broadcast).
        let authEvent = try Self.auth()
        for mode in RelayAuthMode.allCases {
            #expect(Self.policy(mode).writeRefusal(authEvent, authenticated: alice)?.hasPrefix("invalid:") == true)
        }
    }

    @Test func reads() {
        let bobHex = Self.bob.publicKey.hex, aliceHex = Self.alice.publicKey.hex
        let ourWraps = [Filter(kinds: [.giftWrap], tags: ["p": [bobHex]])]
        let mixed = [Filter(kinds: [.giftWrap, .textNote])]
        let notes = [Filter(kinds: [.textNote])]
        for filters in [ourWraps, mixed, notes] { #expect(Self.policy(.none).readRefusal(filters, authenticated: []) == nil) }
        let inbox = Self.policy(.inbox)
        #expect(inbox.readRefusal(ourWraps, authenticated: [])?.hasPrefix("auth-required:") == true)
        #expect(inbox.readRefusal(ourWraps, authenticated: [aliceHex])?.hasPrefix("restricted:") == true)
        #expect(inbox.readRefusal(ourWraps, authenticated: [bobHex]) == nil)
        #expect(inbox.readRefusal([Filter(kinds: [.giftWrap])], authenticated: [aliceHex]) == nil)
        // Other events are served; the gift wraps among them are left out by mayReceive.
        #expect(inbox.readRefusal(mixed, authenticated: []) == nil)
        #expect(inbox.readRefusal(notes, authenticated: []) == nil)
        let all = Self.policy(.all)
        #expect(all.readRefusal(notes, authenticated: [])?.hasPrefix("auth-required:") == true)
        #expect(all.readRefusal(notes, authenticated: [aliceHex]) == nil)
        #expect(all.readRefusal(ourWraps, authenticated: [aliceHex])?.hasPrefix("restricted:") == true)
    }

    @Test func giftWrapsReachOnlyTheirRecipients() {
        let bobHex = Self.bob.publicKey.hex, aliceHex = Self.alice.publicKey.hex
        let toBob = { [bobHex] }
        #expect(Self.policy(.none).mayReceive(kind: .giftWrap, recipients: toBob, authenticated: []))
        for mode in [RelayAuthMode.inbox, .all] {
            let policy = Self.policy(mode)
            #expect(!policy.mayReceive(kind: .giftWrap, recipients: toBob, authenticated: []))
            #expect(!policy.mayReceive(kind: .giftWrap, recipients: toBob, authenticated: [aliceHex]))
            #expect(policy.mayReceive(kind: .giftWrap, recipients: toBob, authenticated: [aliceHex, bobHex]))
            #expect(policy.mayReceive(kind: .textNote, recipients: toBob, authenticated: []))
        }
        #expect(RelayAccessPolicy.recipients(ofJSON: #"{"tags":[["p","ab"],["e","cd"],["p","EF"]]}"#) == ["ab", "EF"])
    }

    @Test func challengesAreFreshAndLongEnough() {
        let a = RelayAccessPolicy.newChallenge(), b = RelayAccessPolicy.newChallenge()
        #expect(a != b && a.count == 32 && b.count == 32)
    }
}
