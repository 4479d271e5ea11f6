import Foundation
import MLS
import Nostr
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// The relays the interop scenarios run over.
enum InteropRelay: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Our `NostrRelay.RelayServer`.
    case embedded
    /// rust-nostr's LocalRelay from `shared/interop/run-relay.sh`.
    case rustNostr

    var testDescription: String { rawValue }
}

/// A running relay of either kind.
final class RunningRelay: Sendable {
    let url: String
    private let server: RelayServer?
    private let process: ChildProcess?

    private init(url: String, server: RelayServer?, process: ChildProcess?) {
        self.url = url
        self.server = server
        self.process = process
    }

    static func start(_ kind: InteropRelay) async throws -> RunningRelay {
        switch kind {
        case .embedded:
            let (server, url) = try await ClientHarness.startRelay()
            return RunningRelay(url: url, server: server, process: nil)
        case .rustNostr:
            let (process, url) = try await InteropKit.startRustRelay()
            return RunningRelay(url: url, server: nil, process: process)
        }
    }

    func stop() async {
        await server?.stop()
        await process?.stop()
    }
}

/// One interop run: a relay, the MDK peer (initialised on it) and our client.
final class InteropContext: Sendable {
    let relay: RunningRelay
    let mdk: MDKPeer
    let mdkKey: PublicKey
    let mdkDataDir: String
    private let account: AccountBox

    var us: TestAccount { get async { await account.value } }

    init(relay: RunningRelay, mdk: MDKPeer, mdkKey: PublicKey, mdkDataDir: String, us: TestAccount) {
        self.relay = relay
        self.mdk = mdk
        self.mdkKey = mdkKey
        self.mdkDataDir = mdkDataDir
        self.account = AccountBox(us)
    }

    /// Our client restarted from its database file.
    func restartUs() async throws -> TestAccount {
        let restarted = try await account.value.restarted()
        await account.set(restarted)
        return restarted
    }

    /// Runs `body` with a fresh relay of `kind`, MDK peer and client; everything is stopped at the
    /// end, and MDK must not have reported any rejected event, nor our client dropped one
    /// (`allowedDrop` names drops a scenario expects, e.g. a Welcome for our other device).
    static func run(
        _ kind: InteropRelay, allowMDKErrors: Bool = false, peerScript: String = InteropKit.mdkPeer,
        allowedDrop: @escaping @Sendable (DropReason) -> Bool = { _ in false }, options: MarmotClient.Options = ClientHarness.options,
        _ body: @Sendable (InteropContext) async throws -> Void
    ) async throws {
        try InteropKit.require()
        let relay = try await RunningRelay.start(kind)
        var mdk: MDKPeer?
        var context: InteropContext?
        do {
            let peer = try await MDKPeer("mdk", script: peerScript)
            mdk = peer
            let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("mdk-peer-\(UUID().uuidString)").path
            let initialised = try await peer.call(["cmd": "init", "relay": relay.url, "data_dir": dataDir, "name": "mdk"])
            let mdkKey = try PublicKey(hex: initialised.string("pubkey") ?? "")
            let us = try await TestAccount("swift", relayURLs: [relay.url], options: options)
            let ctx = InteropContext(relay: relay, mdk: peer, mdkKey: mdkKey, mdkDataDir: dataDir, us: us)
            context = ctx
            try await body(ctx)
            let errors = await peer.reportedErrors
            #expect(allowMDKErrors || errors.isEmpty, "MDK rejected: \(errors)")
            let drops = await ctx.us.pendingEvents().filter { if case .dropped(_, let reason) = $0 { !allowedDrop(reason) } else { false } }
            #expect(drops.isEmpty, "we dropped: \(drops)")
        } catch {
            await context?.us.shutdown()
            await mdk?.stop()
            await relay.stop()
            throw error
        }
        await context?.us.shutdown()
        await mdk?.stop()
        await relay.stop()
    }

    // MARK: Steps shared by the scenarios

    /// Scenario 1's opening: MDK publishes its key package, we create the chat, MDK joins.
    /// Returns our chat and MDK's group id.
    func weCreateChat() async throws -> (Chat, String) {
        let published = try await mdk.call(["cmd": "publish_key_package"])
        #expect(published.int("kind") == 30443)
        let us = await self.us
        let created = try await us.client.createChat(with: mdkKey)
        #expect(created.isNew)
        #expect(created.welcome?.isSent == true)
        let welcome = try await mdk.waitForEvent("welcome")
        #expect(welcome.string("nostr_group_id") == created.chat.nostrGroupID.hex)
        #expect(welcome.string("group_id") == created.chat.id.description)
        #expect(welcome.string("from_pubkey") == us.publicKey.hex)
        #expect(welcome.int("member_count") == 2)
        let group = try #require(welcome.string("group_id"))
        return (created.chat, group)
    }

    /// We send `text`; MDK reports it, from us.
    func weSend(_ text: String, in chat: GroupID) async throws {
        let sent = try await us.client.send(text: text, to: chat)
        #expect(sent.message.deliveryState == .sent)
        let got = try await mdk.waitForEvent("message") { $0.string("text") == text }
        #expect(got.string("from_pubkey") == (await us.publicKey.hex))
        #expect(got.int("kind") == 9)
        #expect(got.string("event_id") == sent.message.outerEventID?.hex)
        #expect(got.string("rumor_id") == sent.id.hex)
    }

    /// MDK sends `text`; we decrypt it, from MDK.
    func mdkSends(_ text: String, in group: String) async throws {
        let reply = try await mdk.call(["cmd": "send", "group_id": group, "text": text])
        let got = try await us.waitForMessage(text)
        #expect(got.sender == mdkKey)
        #expect(got.outerEventID?.hex == reply.string("event_id"))
    }
}

private actor AccountBox {
    var value: TestAccount
    init(_ value: TestAccount) { self.value = value }
    func set(_ value: TestAccount) { self.value = value }
}

/// The five interop scenarios against the real MDK 0.8.0 peer, over our relay and rust-nostr's.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: InteropKit.shouldRun, "interop kit (shared/interop + venv) not found"))
struct MDKInteropTests {
    /// (1) We create the chat with MDK's npub and send; MDK replies; we decrypt.
    @Test(arguments: InteropRelay.allCases)
    func weCreateTheChat(relay: InteropRelay) async throws {
        try await InteropContext.run(relay) { ctx in
            let (chat, group) = try await ctx.weCreateChat()
            try await ctx.weSend("hello mdk, from swift", in: chat.id)
            try await ctx.mdkSends("hello swift, from mdk", in: group)
            try await ctx.weSend("second from swift", in: chat.id)
            let history = try await ctx.mdk.call(["cmd": "messages", "group_id": group])
            #expect((history["messages"] as? [Any])?.count == 3)
        }
    }

    /// (2) MDK creates the chat with our npub; we join (and rotate our leaf, which MDK applies); both talk.
    @Test(arguments: InteropRelay.allCases)
    func mdkCreatesTheChat(relay: InteropRelay) async throws {
        try await InteropContext.run(relay) { ctx in
            let us = await ctx.us
            let published = try await us.client.publishKeyPackage()
            #expect(published.isPublished)
            let created = try await ctx.mdk.call(["cmd": "create_chat", "peer_npub": us.publicKey.npub])
            // Kind 443: kind 30443 is our v2 key package's alone (White Noise reads every one).
            #expect(created.int("key_package_kind") == 443)
            #expect(created.string("key_package_event_id") == published.event.eventID.hex)
            let group = try #require(created.string("group_id"))

            let (chat, inviter) = try await us.waitForWelcome()
            #expect(inviter == ctx.mdkKey)
            #expect(chat.nostrGroupID.hex == created.string("nostr_group_id"))
            #expect(chat.id.description == group)
            #expect(chat.peer == ctx.mdkKey)
            #expect(chat.admins == [ctx.mdkKey])
            // Post-join self-update (MIP-02), applied by MDK.
            #expect(try await us.waitForCommit(epoch: 2, by: us.publicKey) == us.publicKey)
            _ = try await ctx.mdk.waitForEvent("commit") { $0.int("epoch") == 2 }

            try await ctx.mdkSends("welcome aboard, swift", in: group)
            try await ctx.weSend("thanks, mdk", in: chat.id)
        }
    }

    /// (3) MDK self-updates; messages keep flowing both ways in the new epoch.
    @Test(arguments: InteropRelay.allCases)
    func mdkSelfUpdates(relay: InteropRelay) async throws {
        try await InteropContext.run(relay) { ctx in
            let (chat, group) = try await ctx.weCreateChat()
            try await ctx.weSend("before the update", in: chat.id)
            let update = try await ctx.mdk.call(["cmd": "self_update", "group_id": group])
            #expect(update.int("epoch") == 2)
            let us = await ctx.us
            #expect(try await us.waitForCommit(epoch: 2, by: ctx.mdkKey) == ctx.mdkKey)
            try await ctx.weSend("after mdk's update, from swift", in: chat.id)
            try await ctx.mdkSends("after my update, from mdk", in: group)
            _ = try await ctx.mdk.call(["cmd": "self_update", "group_id": group])
            _ = try await us.waitForCommit(epoch: 3, by: ctx.mdkKey)
            try await ctx.mdkSends("epoch 3, from mdk", in: group)
            try await ctx.weSend("epoch 3, from swift", in: chat.id)
        }
    }

    /// (4) We self-update; MDK applies the commit and keeps decrypting.
    @Test(arguments: InteropRelay.allCases)
    func weSelfUpdate(relay: InteropRelay) async throws {
        try await InteropContext.run(relay) { ctx in
            let (chat, group) = try await ctx.weCreateChat()
            try await ctx.mdkSends("before your update", in: group)
            let us = await ctx.us
            let outcome = try await us.client.selfUpdate(chat.id)
            #expect(outcome.epoch == 2)
            _ = try await ctx.mdk.waitForEvent("commit") { $0.int("epoch") == 2 }
            try await ctx.weSend("after my update, from swift", in: chat.id)
            try await ctx.mdkSends("after your update, from mdk", in: group)
            _ = try await us.client.selfUpdate(chat.id)
            _ = try await ctx.mdk.waitForEvent("commit") { $0.int("epoch") == 3 }
            try await ctx.weSend("epoch 3, from swift", in: chat.id)
            try await ctx.mdkSends("epoch 3, from mdk", in: group)
        }
    }

    /// (5) We restart from our database mid-conversation (MDK writes while we are away) and continue.
    @Test(arguments: InteropRelay.allCases)
    func weRestartMidConversation(relay: InteropRelay) async throws {
        try await InteropContext.run(relay) { ctx in
            let (chat, group) = try await ctx.weCreateChat()
            try await ctx.weSend("before restart, from swift", in: chat.id)
            try await ctx.mdkSends("before restart, from mdk", in: group)

            let before = await ctx.us
            await before.shutdown()
            _ = try await ctx.mdk.call(["cmd": "send", "group_id": group, "text": "while you were away"])
            let us = try await ctx.restartUs()
            let away = try await us.waitForMessage("while you were away")
            #expect(away.sender == ctx.mdkKey)
            try await ctx.weSend("after restart, from swift", in: chat.id)
            try await ctx.mdkSends("after restart, from mdk", in: group)

            // Keys rotate after the restart too.
            _ = try await us.client.selfUpdate(chat.id)
            _ = try await ctx.mdk.waitForEvent("commit") { $0.int("epoch") == 2 }
            try await ctx.mdkSends("epoch 2 after restart, from mdk", in: group)
            try await ctx.weSend("epoch 2 after restart, from swift", in: chat.id)
            let texts = try await us.allMessages(chat.id).map(\.content)
            #expect(texts.count == 7)
            #expect(Set(texts).count == 7)
        }
    }

    /// Both sides commit in the same epoch at once. We apply the §5.7 rule; MDK 0.8.0 keeps
    /// whichever commit it applied first (it snapshots only received commits), so the two may fork;
    /// MDK's next message then opens only on its branch and we move onto it, re-sending what we
    /// sent on ours. Either way the conversation continues both ways.
    @Test(arguments: InteropRelay.allCases)
    func competingCommitsWithMDK(relay: InteropRelay) async throws {
        try await InteropContext.run(relay, allowMDKErrors: true) { ctx in
            let (chat, group) = try await ctx.weCreateChat()
            try await ctx.weSend("before the race", in: chat.id)
            let us = await ctx.us
            let mdk = ctx.mdk
            async let ours = us.client.selfUpdate(chat.id)
            async let theirs = mdk.call(["cmd": "self_update", "group_id": group])
            let (a, b) = try await (ours, theirs)
            #expect(a.epoch == 2)
            // MDK's peer awaits its publish before it merges its commit, and may take ours in
            // meanwhile (seen on a loaded machine): it then reports the epoch after both.
            #expect([2, 3].contains(b.int("epoch")), "MDK at epoch \(b.int("epoch").map(String.init) ?? "?")")
            // Sent right away, possibly on the branch MDK is not on.
            let early = try await us.client.send(text: "right after the race, from swift", to: chat.id)
            #expect(early.message.deliveryState == .sent)
            try await ctx.mdkSends("after the race, from mdk", in: group)
            _ = try await mdk.waitForEvent("message") { $0.string("text") == "right after the race, from swift" }
            try await ctx.weSend("settled, from swift", in: chat.id)
            try await ctx.mdkSends("settled, from mdk", in: group)
            let errors = await mdk.reportedErrors
            print("race over \(relay): ours \(a.publish.eventID.hex.prefix(8)), "
                + "MDK's \(b.string("event_id")?.prefix(8) ?? "?"); MDK errors: \(errors.count)")
        }
    }
}
