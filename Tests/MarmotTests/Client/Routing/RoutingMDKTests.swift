import Foundation
import MLS
import Nostr
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Which of Bob's relay lists are on relay A.
enum PublishedLists: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Kinds 10002, 10050 and 10051: the group relays come from his 10002.
    case all
    /// Kinds 10050 and 10051 only: the group relays come from his key package's `relays` tag.
    case noNIP65

    var kinds: [Kind] { self == .all ? [.relayList, .dmRelays, .keyPackageRelays] : [.dmRelays, .keyPackageRelays] }
    var testDescription: String { rawValue }
}

/// Issue #17 with the real MDK 0.8.0 peer in Bob's place: relays that do not overlap ours.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: InteropKit.shouldRun, "interop kit (shared/interop + venv) not found"))
struct RoutingMDKTests {
    /// Alice (our client) uses relays A and B; MDK-Bob is connected to C only and its key package
    /// names C. Bob's relay lists (10002/10050/10051, naming C) are on A. Alice finds them on A,
    /// fetches the key package from C, delivers the Welcome to C (his inbox) and names C among the
    /// group's relays (from his 10002, else from his key package's `relays` tag), so the chat
    /// reaches Bob; they talk both ways.
    @Test(arguments: PublishedLists.allCases)
    func mdkPeerOnADisjointRelayIsFoundThroughItsListsAndTalks(lists: PublishedLists) async throws {
        try InteropKit.require()
        let (a, urlA) = try await ClientHarness.startRelay()
        let (b, urlB) = try await ClientHarness.startRelay()
        let (c, urlC) = try await ClientHarness.startRelay()
        let bobKeys = Keys.generate()
        let mdk = try await MDKPeer("mdk-bob")
        var alice: TestAccount?
        do {
            let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("mdk-peer-\(UUID().uuidString)").path
            let initialised = try await mdk.call([
                "cmd": "init", "relay": urlC, "data_dir": dataDir, "name": "mdk-bob",
                "nsec": bobKeys.secretKey.nsecEncoded(),
            ])
            #expect(initialised.string("pubkey") == bobKeys.publicKey.hex)
            let published = try await mdk.call(["cmd": "publish_key_package"])
            #expect(published.int("kind") == 30443)
            let onC = try await RelayReads.keyPackage(of: bobKeys.publicKey, on: urlC)
            #expect(onC.relays.map(\.string) == [urlC])

            // The MDK 0.8.0 peer cannot publish relay lists (its protocol has no command for them),
            // so the test signs Bob's with his nsec using our types and puts them on A, where Alice
            // looks. They name C only; nothing else of Bob's is on A or B.
            let relayC = try RelayURL(urlC)
            for unsigned in RelayLists.announcements(of: [relayC], author: bobKeys.publicKey, createdAt: UnsignedEvent.now())
            where lists.kinds.contains(unsigned.kind) {
                #expect(try await RelayReads.publish(try unsigned.signed(with: bobKeys), to: urlA).isAccepted)
            }
            for url in [urlA, urlB] {
                let packages = try await RelayReads.fetch(
                    Filter(authors: [bobKeys.publicKey], kinds: [.addressableKeyPackage, .keyPackage]), from: url)
                #expect(packages.isEmpty)
            }

            let us = try await TestAccount("alice", relayURLs: [urlA, urlB])
            alice = us
            let created = try await us.client.createChat(with: bobKeys.publicKey)
            #expect(created.isNew)
            #expect(created.welcome?.accepted.contains(urlC) == true)
            #expect(Set(created.chat.relays.map(\.string)) == [urlA, urlB, urlC])
            #expect(Set(await us.pool.relays) == [urlA, urlB, urlC])

            let welcome = try await mdk.waitForEvent("welcome")
            #expect(welcome.string("from_pubkey") == us.publicKey.hex)
            #expect(welcome.string("nostr_group_id") == created.chat.nostrGroupID.hex)
            let group = try #require(welcome.string("group_id"))
            let groups = try await mdk.call(["cmd": "groups"])
            #expect((groups["groups"] as? [[String: Any]])?.first?["state"] as? String == "active")

            let sent = try await us.client.send(text: "found you on C", to: created.chat.id)
            let got = try await mdk.waitForEvent("message") { $0.string("text") == "found you on C" }
            #expect(got.string("from_pubkey") == us.publicKey.hex)
            #expect(got.string("event_id") == sent.message.outerEventID?.hex)

            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": "reading you on C"])
            let reply = try await us.waitForMessage("reading you on C")
            #expect(reply.sender == bobKeys.publicKey)

            let errors = await mdk.reportedErrors
            #expect(errors.isEmpty, "MDK rejected: \(errors)")
            let drops = await us.pendingEvents().filter { if case .dropped = $0 { true } else { false } }
            #expect(drops.isEmpty, "we dropped: \(drops)")
        } catch {
            await alice?.shutdown()
            await mdk.stop()
            for relay in [a, b, c] { await relay.stop() }
            throw error
        }
        await alice?.shutdown()
        await mdk.stop()
        for relay in [a, b, c] { await relay.stop() }
    }
}
