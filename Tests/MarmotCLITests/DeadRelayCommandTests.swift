import Foundation
import Testing
import TestSupport

/// A dead relay beside a live one never holds a command up (issue 50), with real binaries and
/// sockets: a refused port and a host that accepts TCP and never upgrades. Times are not asserted
/// (a loaded machine must not fail a test; `marmot-bench deadrelays` measures them): the `-v` log
/// shows the catch-up let the dead relay go rather than waiting it out, and every command succeeds.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct DeadRelayCommandTests {
    @Test func chatsInvitesAndSendWithADeadRelayBesideTheLiveOne() async throws {
        let live = try await TestRelay.start()
        defer { Task { await live.stop() } }
        let alice = try TestHome("alice"), bob = try TestHome("bob")
        defer {
            alice.remove()
            bob.remove()
        }
        _ = try await CLI.createAccount(alice, relay: live.url)
        let bobNpub = try await CLI.createAccount(bob, relay: live.url)
        _ = try await CLI.openAcceptedChat(alice, with: bobNpub, peer: bob, relays: [live.url])
        for dead in [try LoopbackDeadEnds.refusedURL(), try LoopbackDeadEnds.blackHoleURL()] {
            let relays = ["--relay", live.url, "--relay", dead]
            let chats = try await CLI.run(["chats", "--json", "-v"] + relays, home: alice)
            #expect(chats.status == 0, "\(chats)")
            #expect(chats.stderr.contains("not waiting for \(dead) to catch up"), "\(chats)")
            let invites = try await CLI.run(["invites", "--json", "-v"] + relays, home: bob)
            #expect(invites.status == 0, "\(invites)")
            let sent = try await CLI.run(["send", bobNpub, "through one live relay", "--json"] + relays, home: alice)
            #expect(sent.status == 0, "\(sent)")
            #expect(try sent.object()["delivery"] as? String == "sent", "\(sent)")
        }
        // What was sent reached Bob through the live relay.
        var texts: [String] = []
        for _ in 0..<10 where texts.isEmpty {
            let listened = try await CLI.run(["listen", "--timeout", "3", "--json", "--relay", live.url], home: bob)
            texts = listened.objects.compactMap { $0["text"] as? String }.filter { $0 == "through one live relay" }
        }
        #expect(!texts.isEmpty)
    }

    /// The embedded relay keeps its home's port (issue 50): a chat made on it names that URL, and
    /// later commands find the relay there again instead of waiting on a port nobody serves.
    @Test func theEmbeddedRelayKeepsOneAddressPerHome() async throws {
        let home = try TestHome("embedded")
        defer { home.remove() }
        let created = try await CLI.run(["account", "create", "--json"], home: home)
        #expect(created.status == 0, "\(created)")
        let port = try String(contentsOf: home.url.appendingPathComponent("relay-port"), encoding: .utf8)
            .split(separator: "\n").first.map(String.init)
        let kept = try #require(port.flatMap(Int.init), "the port is kept in relay-port")
        for _ in 0..<2 {
            let chats = try await CLI.run(["chats", "--json", "-v"], home: home)
            #expect(chats.status == 0, "\(chats)")
            #expect(chats.stderr.contains("the embedded relay at ws://127.0.0.1:\(kept) "), "\(chats)")
            #expect(!chats.stderr.contains("connection refused"), "\(chats)")
        }
        // While one command of the home runs the relay, another uses it rather than a second one.
        let listen = try CLI.start(["listen", "--timeout", "20", "--json"], home: home, name: "listen")
        defer { Task { await listen.stop() } }
        #expect(await listen.nextLine(timeout: 60)?.contains("listening") == true)
        let meanwhile = try await CLI.run(["chats", "--json", "-v"], home: home)
        #expect(meanwhile.status == 0, "\(meanwhile)")
        #expect(meanwhile.stderr.contains("ws://127.0.0.1:\(kept)"), "\(meanwhile)")
        #expect(meanwhile.stderr.contains("run by another marmot process"), "\(meanwhile)")
    }

    /// A port another program took moves the embedded relay; a chat made on the old address (the
    /// Notes chat names it as its group relay) follows it instead of waiting on the taker (issue 50).
    @Test func aTakenPortMovesTheEmbeddedRelayAndItsChatsFollow() async throws {
        let home = try TestHome("moved")
        defer { home.remove() }
        #expect(try await CLI.run(["account", "create", "--json"], home: home).status == 0)
        let first = try await CLI.run(["notes", "before the move", "--json"], home: home)
        #expect(first.status == 0, "\(first)")
        let portFile = home.url.appendingPathComponent("relay-port")
        let kept = try #require(UInt16(try String(contentsOf: portFile, encoding: .utf8).split(separator: "\n").first ?? ""))
        _ = try LoopbackDeadEnds.blackHoleURL(port: kept)
        let moved = try await CLI.run(["notes", "after the move", "--json", "-v"], home: home)
        #expect(moved.status == 0, "\(moved)")
        #expect(moved.stderr.contains("is taken by another program; moving to a new port"), "\(moved)")
        #expect(!moved.stderr.contains("adding group relay ws://127.0.0.1:\(kept)"), "\(moved)")
        let ports = try String(contentsOf: portFile, encoding: .utf8).split(separator: "\n").compactMap { UInt16($0) }
        #expect(ports.count == 2 && ports.last == kept && ports.first != kept, "\(ports)")
        let notes = try await CLI.run(["notes", "--json"], home: home)
        #expect(notes.objects.compactMap { $0["text"] as? String } == ["before the move", "after the move"], "\(notes)")
    }
}
