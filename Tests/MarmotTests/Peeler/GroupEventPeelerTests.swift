import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

/// The kind-445 peeler alone (issue 24): real groups and real envelopes in, the peeled message or
/// the drop reason out, with no client, store or clock (the time is an input).
@Suite struct GroupEventPeelerTests {
    static let now: Int64 = 1_800_000_000
    static let window = GroupEvent.TimeWindow.mdkDefault

    /// The kind-445 key of `mls`'s epoch, derived as the client derives it.
    static func eventKey(_ mls: MLSGroup) throws -> GroupEventKey {
        try GroupEventKey(exporter: { try mls.exporter(label: $0, context: $1, length: $2) })
    }

    /// `bytes` (an MLSMessage) in a kind-445 envelope of `rules`, sealed with `key`.
    static func envelope(
        _ bytes: Data, rules: any GroupRules = V2GroupRules(), h: NostrGroupID, key: GroupEventKey, createdAt: Int64 = now
    ) throws -> Event {
        try rules.groupEvent(try MLSMessage(tlsSerialized: bytes), nostrGroupID: h, key: key, createdAt: createdAt)
    }

    /// The peeler `holder` runs for its group with `keys`.
    static func peeler(
        _ holder: GroupEngine, h: NostrGroupID, keys: [PeelKey], rules: any GroupRules = V2GroupRules()
    ) -> GroupEventPeeler {
        GroupEventPeeler(rules: rules, nostrGroupID: h, groupID: holder.state.groupID, keys: keys, window: window)
    }

    @Test func aGoodEventOpensWithTheCurrentKey() throws {
        let party = try GroupEngineTests.Party(["alice", "bob"])
        var alice = party.engines["alice"]!
        let bob = party.engines["bob"]!
        let h = try #require(alice.metadata?.nostrGroupID)
        let bytes = try alice.encrypt("hello", createdAt: Self.now)
        let event = try Self.envelope(bytes, h: h, key: try Self.eventKey(alice.state))

        let peeled = try Self.peeler(bob, h: h, keys: [PeelKey(try Self.eventKey(bob.state), from: .epoch(bob.epoch))])
            .peel(event, now: Self.now)
        #expect(peeled.openedBy == .epoch(1))
        #expect(peeled.alternate == nil)
        #expect(peeled.contentType == .application)
        #expect(peeled.epoch == 1)
        #expect(peeled.groupID == bob.state.groupID)
        #expect(peeled.message.tlsSerialized == bytes)
        // What it peeled is what MLS then opens on the group: Alice's message.
        guard case .application(let application) = try bob.state.processing(peeled.message).0 else {
            Issue.record("not an application message")
            return
        }
        #expect(try ChatRumor(plaintext: application.data, sender: party.keys["alice"]!.publicKey).content == "hello")
    }

    @Test func aLateEventOpensWithTheRetainedKeyOfItsEpoch() throws {
        let party = try GroupEngineTests.Party(["alice", "bob"])
        var alice = party.engines["alice"]!
        var bob = party.engines["bob"]!
        let h = try #require(alice.metadata?.nostrGroupID)
        let early = try Self.envelope(try alice.encrypt("sent in epoch 1", createdAt: Self.now), h: h, key: try Self.eventKey(alice.state))
        let epochOneKey = try Self.eventKey(bob.state)
        let update = try alice.commit(rotateSigner: true)
        _ = alice.confirm(update)
        _ = bob.receive(update.bytes)
        #expect(bob.epoch == 2)
        let keys = [PeelKey(try Self.eventKey(bob.state), from: .epoch(2)), PeelKey(epochOneKey, from: .epoch(1))]

        let peeled = try Self.peeler(bob, h: h, keys: keys).peel(early, now: Self.now)
        #expect(peeled.openedBy == .epoch(1))
        #expect(peeled.epoch == 1)
        // Without the retained key it waits for nothing it could get: undecryptable.
        #expect(throws: DropReason.undecryptable) { try Self.peeler(bob, h: h, keys: [keys[0]]).peel(early, now: Self.now) }
    }

    /// A race: Alice's and Bob's self-updates both leave epoch 1. Carol applied Alice's; Bob's branch
    /// is her alternate. Bob's next message opens only with the alternate's key, and the peeler says
    /// which branch it was; Alice's opens with Carol's current key.
    @Test func anEventOfTheOtherBranchOpensWithTheAlternatesKeyAndSaysSo() throws {
        let party = try GroupEngineTests.Party(["alice", "bob", "carol"])
        var alice = party.engines["alice"]!, bob = party.engines["bob"]!, carol = party.engines["carol"]!
        let h = try #require(alice.metadata?.nostrGroupID)
        let forkState = carol.state
        let epochOneKey = try Self.eventKey(forkState)
        let fromAlice = try alice.commit(rotateSigner: true)
        let fromBob = try bob.commit(rotateSigner: true)
        let bobsCommit = try Self.envelope(fromBob.bytes, h: h, key: epochOneKey)
        _ = alice.confirm(fromAlice)
        _ = bob.confirm(fromBob)
        _ = carol.receive(fromAlice.bytes)
        #expect(carol.epoch == 2)
        let onBobsBranch = try forkState.processing(try MLSMessage(tlsSerialized: fromBob.bytes)).1
        let keys = [
            PeelKey(try Self.eventKey(carol.state), from: .epoch(2)), PeelKey(epochOneKey, from: .epoch(1)),
            PeelKey(try Self.eventKey(onBobsBranch), from: .alternate(forkEpoch: 1, commit: bobsCommit.id)),
        ]
        let peeler = Self.peeler(carol, h: h, keys: keys)

        let fromBobsBranch = try Self.envelope(
            try bob.encrypt("on my branch", createdAt: Self.now), h: h, key: try Self.eventKey(bob.state))
        let peeled = try peeler.peel(fromBobsBranch, now: Self.now)
        #expect(peeled.openedBy == .alternate(forkEpoch: 1, commit: bobsCommit.id))
        #expect(peeled.alternate?.forkEpoch == 1 && peeled.alternate?.commit == bobsCommit.id)
        #expect(peeled.epoch == 2 && peeled.contentType == .application)

        let fromAlicesBranch = try Self.envelope(
            try alice.encrypt("on ours", createdAt: Self.now), h: h, key: try Self.eventKey(alice.state))
        #expect(try peeler.peel(fromAlicesBranch, now: Self.now).openedBy == .epoch(2))
        // Bob's commit itself is sealed with the shared epoch-1 key: a commit of a past epoch.
        let commit = try peeler.peel(bobsCommit, now: Self.now)
        #expect(commit.openedBy == .epoch(1) && commit.contentType == .commit && commit.epoch == 1)
    }

    @Test func anEventOfAnotherHIsAnUnknownGroup() throws {
        let party = try GroupEngineTests.Party(["alice", "bob"])
        var alice = party.engines["alice"]!
        let bob = party.engines["bob"]!
        let h = try #require(alice.metadata?.nostrGroupID)
        let key = try Self.eventKey(alice.state)
        let other = NostrGroupID.random()
        let event = try Self.envelope(try alice.encrypt("elsewhere", createdAt: Self.now), h: other, key: key)
        #expect(throws: DropReason.unknownGroup(other)) {
            try Self.peeler(bob, h: h, keys: [PeelKey(key, from: .epoch(1))]).peel(event, now: Self.now)
        }
        // With no group of ours for its `h`, the client reports the same, checking the envelope as
        // v1 does (the stricter checks): a v1-framed event is an unknown group, a v2-framed one
        // fails v1's encoding-tag check first.
        let v1Framed = try Self.envelope(try alice.encrypt("elsewhere", createdAt: Self.now), rules: V1GroupRules(), h: other, key: key)
        #expect(GroupEventPeeler.dropUnknown(v1Framed, now: Self.now, window: Self.window) == .unknownGroup(other))
        #expect(GroupEventPeeler.dropUnknown(event, now: Self.now, window: Self.window) == .invalidGroupEvent(.unsupportedEncoding))
    }

    /// A relay (or anyone who knows the `h` tag) flips one ciphertext byte and re-signs the envelope
    /// with a key of its own: the envelope is valid, the content opens with no key.
    @Test func aTamperedOrForeignEventIsUndecryptable() throws {
        let party = try GroupEngineTests.Party(["alice", "bob"])
        var alice = party.engines["alice"]!
        let bob = party.engines["bob"]!
        let h = try #require(alice.metadata?.nostrGroupID)
        let key = try Self.eventKey(alice.state)
        let genuine = try Self.envelope(try alice.encrypt("genuine", createdAt: Self.now), h: h, key: key)
        var sealed = try #require(Data(base64Encoded: genuine.content))
        sealed[sealed.count - 20] ^= 0x01
        let resigner = Keys.generate()
        let tampered = try UnsignedEvent(
            pubkey: resigner.publicKey, createdAt: genuine.createdAt, kind: .groupMessage, tags: genuine.tags,
            content: sealed.base64EncodedString()
        ).signed(with: resigner)
        let peeler = Self.peeler(bob, h: h, keys: [PeelKey(try Self.eventKey(bob.state), from: .epoch(1))])
        #expect(try peeler.peel(genuine, now: Self.now).openedBy == .epoch(1))
        #expect(throws: DropReason.undecryptable) { try peeler.peel(tampered, now: Self.now) }
        // Sealed with a key Bob does not hold (an epoch still to come, or an outsider's guess).
        let foreign = try Self.envelope(
            try alice.encrypt("unknown key", createdAt: Self.now), h: h, key: try GroupEventKey(bytes: Data(repeating: 7, count: 32)))
        #expect(throws: DropReason.undecryptable) { try peeler.peel(foreign, now: Self.now) }
    }

    /// An insider of another group (or of this one, with an old state of another) seals a genuine
    /// MLS message of a different group under this group's key and `h`: it opens, but is not ours.
    @Test func aWrongMLSGroupIDInsideIsMalformed() throws {
        let party = try GroupEngineTests.Party(["alice", "bob"])
        let elsewhere = try GroupEngineTests.Party(["alice", "bob"])
        var stranger = elsewhere.engines["alice"]!
        let bob = party.engines["bob"]!
        let h = try #require(bob.metadata?.nostrGroupID)
        let key = try Self.eventKey(bob.state)
        let peeler = Self.peeler(bob, h: h, keys: [PeelKey(key, from: .epoch(1))])
        let smuggled = try Self.envelope(try stranger.encrypt("not your group", createdAt: Self.now), h: h, key: key)
        #expect {
            try peeler.peel(smuggled, now: Self.now)
        } throws: { error in
            guard case DropReason.malformedMessage(let why) = error else { return false }
            return why.contains("is not the h group's")
        }
        // Plaintext that is no MLSMessage at all.
        let junk = try GroupEvent.build(mlsMessage: Data("not MLS".utf8), tags: [Tag(["h", h.hex])], key: key, createdAt: Self.now)
        #expect {
            try peeler.peel(junk, now: Self.now)
        } throws: { error in
            guard case DropReason.malformedMessage = error else { return false }
            return true
        }
    }

    /// v1 (MDK 0.8.0) refuses an envelope outside the created_at window; v2 (MDK 0.9.14) has no
    /// window but refuses tags other than `h` and `expiration`. Each version's error comes out.
    @Test func anEventOutsideTheWindowGetsItsVersionsEnvelopeError() throws {
        let v1 = V1GroupRules()
        let keys = Keys.generate()
        let metadata = GroupMetadata(
            nostrGroupID: .random(), name: "v1", description: "", admins: [keys.publicKey], relays: [try RelayURL("wss://r.example")])
        var founder = try GroupEngine.found(rules: v1, keys: keys, metadata: metadata, invitees: []).engine
        let h = metadata.nostrGroupID
        let key = try Self.eventKey(founder.state)
        let peeler = Self.peeler(founder, h: h, keys: [PeelKey(key, from: .epoch(0))], rules: v1)
        let bytes = try founder.encrypt("dated", createdAt: Self.now)
        let oldest = Self.now - Self.window.maxAge
        let latest = Self.now + Self.window.maxFutureSkew

        let inside = try Self.envelope(bytes, rules: v1, h: h, key: key, createdAt: oldest)
        #expect(try peeler.peel(inside, now: Self.now).openedBy == .epoch(0))
        let old = try Self.envelope(bytes, rules: v1, h: h, key: key, createdAt: oldest - 1)
        #expect(throws: DropReason.invalidGroupEvent(.tooOld(createdAt: oldest - 1, oldestAccepted: oldest))) {
            try peeler.peel(old, now: Self.now)
        }
        let future = try Self.envelope(bytes, rules: v1, h: h, key: key, createdAt: latest + 1)
        #expect(throws: DropReason.invalidGroupEvent(.tooFarInFuture(createdAt: latest + 1, latestAccepted: latest))) {
            try peeler.peel(future, now: Self.now)
        }
        // The time is the caller's: the same event is inside the window a day earlier.
        #expect(try peeler.peel(old, now: Self.now - 86_400).epoch == 0)
        #expect(GroupEventPeeler.dropUnknown(old, now: Self.now, window: Self.window)
            == .invalidGroupEvent(.tooOld(createdAt: oldest - 1, oldestAccepted: oldest)))

        let party = try GroupEngineTests.Party(["alice", "bob"])
        var alice = party.engines["alice"]!
        let bob = party.engines["bob"]!
        let v2h = try #require(alice.metadata?.nostrGroupID)
        let v2key = try Self.eventKey(alice.state)
        let v2bytes = try alice.encrypt("from a slow clock", createdAt: Self.now)
        let v2peeler = Self.peeler(bob, h: v2h, keys: [PeelKey(v2key, from: .epoch(1))])
        let v2old = try Self.envelope(v2bytes, h: v2h, key: v2key, createdAt: oldest - 86_400)
        #expect(try v2peeler.peel(v2old, now: Self.now).openedBy == .epoch(1))
        let v1Framed = try Self.envelope(v2bytes, rules: v1, h: v2h, key: v2key)
        #expect {
            try v2peeler.peel(v1Framed, now: Self.now)
        } throws: { error in
            guard case DropReason.invalidV2GroupEvent = error else { return false }
            return true
        }
    }

    /// The engine's own keys open what was sent on every branch it holds: Carol, holding Alice's
    /// and Bob's competing renames, opens a message of each branch with that branch's state and one
    /// of the epoch before the race with the anchor's, canonical path first; the engine then shows
    /// one and holds the other. Once renames prune the fork, only the retained states' keys remain.
    @Test func theEnginesKeysOpenEventsOfEveryBranchItHolds() throws {
        let party = try GroupEngineTests.Party(["alice", "bob", "carol"])
        var carol = party.engines["carol"]!
        let h = try #require(carol.metadata?.nostrGroupID)
        var early = party.engines["alice"]!
        let before = try early.encrypt("before the race", createdAt: Self.now)
        let beforeEvent = try Self.envelope(before, h: h, key: try Self.eventKey(early.state))
        let race = try party.race()
        for bytes in [race.a1.bytes, race.b1.bytes] {
            _ = carol.receive(bytes)
            _ = carol.settle()
        }
        let keys = carol.peelKeys()
        let other = try #require(carol.graph.nodes.keys.first { $0 != carol.graph.canonical && $0 != carol.graph.anchor })
        #expect(keys.map(\.source) == [
            .state(carol.graph.canonical, epoch: 2), .state(carol.graph.anchor, epoch: 1), .state(other, epoch: 2),
        ], "the canonical path from its tip first, then the other branch")

        var shown = 0, held = 0
        for (bytes, on) in [(race.onA, race.alice), (race.onB, race.bob)] {
            let event = try Self.envelope(bytes, h: h, key: try Self.eventKey(on.state))
            let peeler = carol.peeler(window: Self.window)
            let peeled = try #require(peeler).peel(event, now: Self.now)
            guard case .state(let node, let epoch) = peeled.openedBy else { Issue.record("not a state key"); continue }
            #expect(epoch == 2 && carol.graph.nodes[node]?.mls.epochAuthenticator == on.state.epochAuthenticator)
            let outputs = carol.receive(peeled.message.tlsSerialized)
            if outputs.contains(where: { if case .application = $0 { true } else { false } }) { shown += 1 } else if outputs.isEmpty { held += 1 }
        }
        #expect(shown == 1 && held == 1, "the selected branch's message shows, the other's is held")
        let beforePeeler = carol.peeler(window: Self.window)
        let old = try #require(beforePeeler).peel(beforeEvent, now: Self.now)
        #expect(old.openedBy == .state(carol.graph.anchor, epoch: 1))

        var leader = race.alice.state.epochAuthenticator == carol.state.epochAuthenticator ? race.alice : race.bob
        for round in 0..<7 {
            let rename = try GroupEngineTests.renameConfirmed(&leader, to: "round \(round)")
            _ = carol.receive(rename.bytes)
            _ = carol.settle()
        }
        #expect(carol.peelKeys().count == 6, "the anchor and the five states of the rewind horizon")
        #expect(carol.eventKeys.count == 6, "pruned states' keys are forgotten")
        let pruned = carol.peeler(window: Self.window)
        let prunedPeeler = try #require(pruned)
        #expect(throws: DropReason.undecryptable) { try prunedPeeler.peel(beforeEvent, now: Self.now) }
    }
}
