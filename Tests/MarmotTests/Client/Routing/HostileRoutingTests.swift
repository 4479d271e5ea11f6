import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Relays named by others (issue 26), each point attacked for real: a hostile inviter whose group
/// names hundreds, then thousands, of relays and addresses on the member's own machine and LAN; a
/// peer whose relay lists name 500 relays; relays that record every REQ and EVENT they receive.
/// Where a victim "contacts" a relay, a plain TCP listener records each connection and its request
/// path, so what is counted is what really reached the network.
@Suite(.serialized, .timeLimit(.minutes(4))) struct HostileRoutingTests {
    /// A hostile inviter (`HostileParty`, not our client) invites Alice to a v1 group whose data names
    /// our relay, eight addresses on Alice's own machine or LAN (loopback in five spellings, a LAN
    /// host, the link-local metadata address, 0.0.0.0) and 600 relays; then, as admin, commits
    /// group data naming 3,000. Alice's relay is on this machine's non-loopback address, so loopback
    /// is a network her own relays are not on (the whole suite otherwise runs on loopback, which the
    /// policy then allows). Alice uses at most 16 of the group's relays (ours and 15 more), never
    /// connects to her own machine, drops the 600 when the commit replaces them, and at a restart
    /// re-adds only those still named.
    @Test func inviterNamingThousandsOfRelaysAndLocalAddressesIsBounded() async throws {
        let host = try #require(ConnectionRecorder.nonLoopbackIPv4(), "needs a non-loopback IPv4 interface")
        let server = RelayServer(configuration: RelayConfiguration(host: host), logger: ClientHarness.logger("relay"))
        let relayPort = try await server.start()
        let url = "ws://\(host):\(relayPort)"
        // Relays on our relay's network (allowed, so counted) and the member's own machine (refused).
        let elsewhere = try ConnectionRecorder(host: host)
        let ownMachine = try ConnectionRecorder(host: "127.0.0.1")
        var options = ClientHarness.options
        options.selfUpdateAfterJoin = false
        let alice = try await TestAccount("alice", relayURLs: [url], options: options)
        _ = try await alice.client.ensureKeyPackages()
        let package = try await RelayReads.keyPackage(of: alice.publicKey, on: url)
        let port = ownMachine.port
        let local = [
            "ws://127.0.0.1:\(port)/admin-chosen-path", "ws://localhost:\(port)/x", "ws://[::ffff:127.0.0.1]:\(port)/",
            "ws://2130706433:\(port)/", "ws://0x7f.1:\(port)/", "ws://0.0.0.0:\(port)", "ws://192.168.1.10:4444",
            "ws://169.254.169.254/latest/meta-data",
        ]
        let lanIsOurs = RelayDestinationPolicy.classify(host: host) == .privateNetwork
        let named = try ([url] + local + (0..<600).map { "ws://\(host):\(elsewhere.port)/w\($0)" }).map { try RelayURL($0) }

        var mallory = HostileParty()
        let welcome = try mallory.createGroup(
            admins: [mallory.publicKey], invitees: [package.keyPackage], relays: named, name: "many relays")
        let wrap = try mallory.wrap(welcome, to: package, relays: [try RelayURL(url)])
        #expect(try await RelayReads.publish(wrap, to: url).isAccepted)
        let invite = try await alice.waitForInvite()
        _ = try await alice.client.acceptInvite(invite.id)

        @Sendable func foreign() async -> Set<String> { Set(await alice.pool.relays).subtracting([url]) }
        let joined = await foreign()
        #expect(joined.count == 15, "16 of the group's relays, ours among them: \(joined.count) others: \(joined.sorted().filter { !$0.contains("/w") })")
        if !lanIsOurs {
            #expect(joined.allSatisfy { $0.hasPrefix("ws://\(host):\(elsewhere.port)/w") }, "\(joined.sorted().prefix(3))")
        }
        #expect(!joined.contains { $0.contains(":\(port)") || $0.contains("169.254") })
        let brought = await alice.client.groupRelays()
        #expect(brought.count == 15 && brought.allSatisfy { $0.groups == [invite.id] })

        // The admin's group-data commit names 3,000 relays (a v1 group has no cap of its own).
        let many = try ([url] + local + (0..<3000).map { "ws://\(host):\(elsewhere.port)/c\($0)" }).map { try RelayURL($0) }
        var data = try NostrGroupData(groupContextExtensions: try #require(mallory.group).extensions)
        data.relays = many
        let extensions = try #require(mallory.group).extensions.map { $0.type == .marmotGroupData ? Extension(data) : $0 }
        let commit = try mallory.commit {
            try $0.commit(proposals: [.groupContextExtensions(GroupContextExtensions(extensions: extensions))])
        }
        #expect(try await RelayReads.publish(try mallory.event(commit.message, epochOf: commit.before), to: url).isAccepted)
        _ = try await alice.waitForCommit(epoch: 2)
        #expect(try await alice.client.chat(invite.id)?.relays.count == many.count, "stored as the group has them")
        try await poll("the pool to follow the new relays") {
            let now = await foreign()
            return now.count == 15 && (lanIsOurs || now.allSatisfy { $0.hasPrefix("ws://\(host):\(elsewhere.port)/c") })
        }

        // Time for every relay in the pool to be dialled (and re-dialled after the listener hangs up).
        try await Task.sleep(for: .seconds(3))
        #expect(ownMachine.connectionCount == 0, "no WebSocket upgrade reached a port on the member's own machine")
        let paths = Set(elsewhere.paths)
        #expect(!paths.isEmpty, "the allowed relays were dialled (the listener works)")
        #expect(paths.filter { $0.hasPrefix("/w") }.count <= 15, "\(paths.count) paths")
        #expect(paths.filter { $0.hasPrefix("/c") }.count <= 15, "\(paths.count) paths")
        #expect(paths.allSatisfy { $0.hasPrefix("/w") || $0.hasPrefix("/c") })

        // A restart re-adds only what the group still names, within the cap.
        let again = try await alice.restarted()
        let restarted = Set(await again.pool.relays).subtracting([url])
        #expect(restarted.count == 15 && (lanIsOurs || restarted.allSatisfy { $0.contains("/c") }))
        try await Task.sleep(for: .seconds(1))
        #expect(ownMachine.connectionCount == 0)
        await again.shutdown()
        elsewhere.stop()
        ownMachine.stop()
        await server.stop()
    }

    /// Bob (keys only, no client) publishes relay lists (10002, 10050, 10051) naming 500 relays, all
    /// pointing at a listener. Alice reading them keeps at most 16 per list; looking for his key
    /// package dials at most `maxPeerRelaysPerLookup` of them, and gives up within the fetch
    /// timeouts. Carol (a real client) publishes a 10050 naming 500 inboxes: Alice's Welcome to her
    /// goes to at most `maxPeerRelaysPerLookup` of them.
    @Test func peerListingFiveHundredRelaysIsFollowedBoundedly() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let listener = try ConnectionRecorder()
        let alice = try await TestAccount("alice", relayURLs: [url])
        let bob = Keys.generate()
        let listed = (0..<500).map { "ws://127.0.0.1:\(listener.port)/p\($0)" }
        for (kind, name) in [(Kind.relayList, "r"), (.dmRelays, "relay"), (.keyPackageRelays, "relay")] {
            let list = try UnsignedEvent(
                pubkey: bob.publicKey, createdAt: UnsignedEvent.now(), kind: kind, tags: listed.map { Tag([name, $0]) }, content: ""
            ).signed(with: bob)
            #expect(try await RelayReads.publish(list, to: url).isAccepted)
        }
        let lists = await alice.client.relayLists(of: bob.publicKey)
        let counts: [Int] = [lists.read.count, lists.write.count, lists.inbox.count, lists.keyPackages.count]
        #expect(counts == [16, 16, 16, 16])

        let started = ContinuousClock.now
        await #expect(throws: MarmotClientError.self) { _ = try await alice.client.createChat(with: bob.publicKey) }
        #expect(ContinuousClock.now - started < .seconds(40), "bounded by the fetch timeouts")
        try await Task.sleep(for: .milliseconds(500))
        let tried = Set(listener.paths)
        #expect(!tried.isEmpty, "the lookup did dial the listed relays (the listener works)")
        #expect(tried.count <= MarmotClient.maxPeerRelaysPerLookup, "\(tried.count) of Bob's relays dialled")

        let carol = try await TestAccount("carol", relayURLs: [url])
        _ = try await carol.client.ensureKeyPackages()
        let inboxes = try UnsignedEvent(
            pubkey: carol.publicKey, createdAt: UnsignedEvent.now(), kind: .dmRelays,
            tags: (0..<500).map { Tag(["relay", "ws://127.0.0.1:\(listener.port)/i\($0)"]) }, content: ""
        ).signed(with: carol.keys)
        #expect(try await RelayReads.publish(inboxes, to: url).isAccepted)
        let created = try await alice.client.createChat(with: carol.publicKey)
        #expect(created.welcome?.accepted.contains(url) == true)
        try await Task.sleep(for: .milliseconds(500))
        let delivered = Set(listener.paths.filter { $0.hasPrefix("/i") })
        #expect(!delivered.isEmpty && delivered.count <= MarmotClient.maxPeerRelaysPerLookup, "\(delivered.count) inboxes dialled")
        _ = try await carol.waitForWelcome()
        await alice.shutdown()
        await carol.shutdown()
        listener.stop()
        await server.stop()
    }

    /// Alice and Bob share relay O. Bob makes group A naming only relay A and group B naming only
    /// relay B; every relay records each REQ and EVENT. After Alice joins both, restarts (one
    /// start-up subscription covers every group) and talks in both: relay A was asked only for A's
    /// `h`, B only for B's, O (named by neither group) for neither; no subscription id holds a
    /// pubkey and no REQ on A or B names Alice's or Bob's key; A and B received only their own
    /// group's events and O none. When Alice leaves B (Bob commits her removal), relay B leaves her
    /// pool and relay A stays.
    @Test func eachRelaySeesOnlyTheGroupsItServesAndNeverOurKey() async throws {
        let (own, urlO, logO) = try await Self.recordingRelay()
        let (relayA, urlA, logA) = try await Self.recordingRelay()
        let (relayB, urlB, logB) = try await Self.recordingRelay()
        let alice = try await TestAccount("alice", relayURLs: [urlO])
        let bob = try await TestAccount("bob", relayURLs: [urlO])
        _ = try await alice.client.ensureKeyPackages()
        let packageA = try await RelayReads.keyPackage(of: alice.publicKey, on: urlO)
        let groupA = try await bob.client.createGroupForTesting(inviting: packageA, relays: [try RelayURL(urlA)], name: "A")
        _ = try await alice.waitForWelcome()
        _ = try await bob.waitForCommit(epoch: 2, by: alice.publicKey)
        let packageB = try await RelayReads.keyPackage(of: alice.publicKey, on: urlO)
        let groupB = try await bob.client.createGroupForTesting(inviting: packageB, relays: [try RelayURL(urlB)], name: "B")
        _ = try await alice.waitForWelcome()
        _ = try await bob.waitForCommit(epoch: 2, by: alice.publicKey)
        #expect(Set(await alice.client.groupRelays().map(\.url.string)) == [urlA, urlB])

        let again = try await alice.restarted()
        await again.client.caughtUp()
        _ = try await bob.client.send(text: "to A", to: groupA)
        _ = try await again.waitForMessage("to A")
        _ = try await again.client.send(text: "from alice in B", to: groupB)
        _ = try await bob.waitForMessage("from alice in B")

        let hA = try #require(try await again.client.chat(groupA)).nostrGroupID.hex
        let hB = try #require(try await again.client.chat(groupB)).nostrGroupID.hex
        #expect(logA.hTags == [hA])
        #expect(logB.hTags == [hB])
        #expect(logO.hTags.isEmpty, "neither group names our relay")
        let keys = [alice.publicKey.hex, bob.publicKey.hex]
        for log in [logO, logA, logB] {
            for request in log.requests {
                #expect(!keys.contains { request.id.rawValue.contains($0.prefix(16)) }, "subscription id \(request.id.rawValue)")
            }
        }
        for log in [logA, logB] {
            for request in log.requests {
                let named = request.filters.flatMap { ($0.authors ?? []).map(\.hex) + ($0.tags["p"] ?? []) }
                #expect(!named.contains { keys.contains($0) }, "a group's relay was asked about a member's key")
            }
        }
        #expect(logA.groupEventTags.isSubset(of: [hA]) && logA.groupEventTags.contains(hA))
        #expect(logB.groupEventTags.isSubset(of: [hB]) && logB.groupEventTags.contains(hB))
        #expect(logO.groupEventTags.isEmpty)

        _ = try await again.client.leaveGroup(groupB)
        try await poll("relay B to leave Alice's pool") { !(await again.pool.relays.contains(urlB)) }
        #expect(await again.pool.relays.contains(urlA))
        #expect(await again.client.groupRelays().map(\.url.string) == [urlA])
        for account in [again, bob] { await account.shutdown() }
        for relay in [own, relayA, relayB] { await relay.stop() }
    }

    /// Subscriptions go only where they are routed, so they must follow our relays: a relay Alice
    /// adds gets her gift-wrap subscription at once, and an invitation published only there reaches
    /// her without a restart.
    @Test func aRelayAddedToOursGetsTheGiftWrapSubscriptionAtOnce() async throws {
        let (first, urlA) = try await ClientHarness.startRelay()
        let (second, urlN) = try await ClientHarness.startRelay()
        let alice = try await TestAccount("alice", relayURLs: [urlA])
        _ = try await alice.client.ensureKeyPackages()
        let package = try await RelayReads.keyPackage(of: alice.publicKey, on: urlA)
        try await alice.client.setRelays([try RelayURL(urlA), try RelayURL(urlN)])
        var mallory = HostileParty()
        let welcome = try mallory.createGroup(
            admins: [mallory.publicKey], invitees: [package.keyPackage], relays: [try RelayURL(urlN)], name: "new relay")
        #expect(try await RelayReads.publish(try mallory.wrap(welcome, to: package, relays: [try RelayURL(urlN)]), to: urlN).isAccepted)
        _ = try await alice.waitForInvite()
        await alice.shutdown()
        await first.stop()
        await second.stop()
    }

    // MARK: Helpers

    /// An embedded relay on loopback recording every REQ and EVENT it receives.
    static func recordingRelay() async throws -> (RelayServer, String, RequestLog) {
        let log = RequestLog()
        var configuration = RelayConfiguration()
        configuration.faults = RelayFaults(
            rejectWith: { event in
                log.add(event)
                return nil
            },
            closeOnREQ: { id, filters in
                log.add(id, filters)
                return false
            })
        let server = RelayServer(configuration: configuration, logger: ClientHarness.logger("relay"))
        let port = try await server.start()
        return (server, "ws://127.0.0.1:\(port)", log)
    }

    /// Polls `condition` every 100 ms for up to 20 s.
    func poll(_ what: String, _ condition: @Sendable () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError.timeout(what)
    }
}

/// What a recording relay received.
final class RequestLog: @unchecked Sendable {
    struct Request {
        let id: SubscriptionID
        let filters: [Filter]
    }

    private let lock = NSLock()
    private var received: [Request] = []
    private var published: [Event] = []

    func add(_ id: SubscriptionID, _ filters: [Filter]) { lock.withLock { received.append(Request(id: id, filters: filters)) } }
    func add(_ event: Event) { lock.withLock { published.append(event) } }

    var requests: [Request] { lock.withLock { received } }
    /// Every `h` value a REQ asked for.
    var hTags: Set<String> { Set(requests.flatMap { $0.filters.flatMap { $0.tags["h"] ?? [] } }) }
    /// The `h` of every kind-445 event published to the relay.
    var groupEventTags: Set<String> {
        Set(lock.withLock { published }.filter { $0.kind == .groupMessage }.compactMap { $0.tags.first { $0.name == "h" }?.value })
    }
}

extension MarmotClient {
    /// Test: a group whose data names exactly `relays` (an inviter choosing them by hand), inviting
    /// the author of `package`; the Welcome goes to our relays and the group's. The invitee's relay
    /// lists are not looked up (so no relay is asked about the invitee).
    func createGroupForTesting(inviting package: PeerKeyPackage, relays groupRelays: [RelayURL], name: String) async throws -> GroupID {
        await acquire()
        let built: (GroupID, Welcome)
        do {
            built = try buildGroup(
                inviting: [package], name: name, description: "", admins: [publicKey], relays: groupRelays, peer: nil)
        } catch {
            release()
            throw error
        }
        await syncPoolRelays()
        await subscribe(.group(built.0))
        release()
        let wrap = try package.version.rules.wrapWelcome(
            built.1, author: keys, invitee: package, relays: groupRelays, client: nil, createdAt: now())
        if peerRelayLists[package.author] == nil { peerRelayLists[package.author] = RelayLists() }
        let result = await publishWelcome(wrap, to: package.author, group: built.0)
        guard result.isSent else { throw MarmotClientError.notPublished(result) }
        return built.0
    }
}
