import Foundation
import MLS
import Nostr
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// An extra MDK peer on the run's relay (stopped by `withPeers`).
struct ExtraPeer: Sendable {
    let peer: MDKPeer
    let key: PublicKey

    static func start(_ name: String, on ctx: InteropContext, publishKeyPackage: Bool = true) async throws -> ExtraPeer {
        let peer = try await MDKPeer(name)
        do {
            let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("mdk-\(name)-\(UUID().uuidString)").path
            let initialised = try await peer.call(["cmd": "init", "relay": ctx.relay.url, "data_dir": dataDir, "name": name])
            let key = try PublicKey(hex: initialised.string("pubkey") ?? "")
            if publishKeyPackage { _ = try await peer.call(["cmd": "publish_key_package"]) }
            return ExtraPeer(peer: peer, key: key)
        } catch {
            await peer.stop()
            throw error
        }
    }

    /// The members MDK sees in `group`, as keys.
    func members(_ group: String) async throws -> (name: String?, epoch: Int?, members: Set<PublicKey>, admins: Set<PublicKey>) {
        try await Self.members(of: peer, group)
    }

    static func members(of peer: MDKPeer, _ group: String) async throws
        -> (name: String?, epoch: Int?, members: Set<PublicKey>, admins: Set<PublicKey>)
    {
        let reply = try await peer.call(["cmd": "members", "group_id": group])
        let members = Set(((reply["members"] as? [String]) ?? []).compactMap { try? PublicKey(npub: $0) })
        let admins = Set(((reply["admins"] as? [String]) ?? []).compactMap { try? PublicKey(npub: $0) })
        return (reply.string("name"), reply.int("epoch"), members, admins)
    }
}

/// Runs `body` with extra MDK peers started on the context's relay, stopping them whatever happens.
func withPeers(
    _ names: [String], on ctx: InteropContext, publishKeyPackages: Bool = true,
    _ body: @Sendable ([ExtraPeer]) async throws -> Void
) async throws {
    var peers: [ExtraPeer] = []
    do {
        for name in names { peers.append(try await ExtraPeer.start(name, on: ctx, publishKeyPackage: publishKeyPackages)) }
        try await body(peers)
    } catch {
        for peer in peers { await peer.peer.stop() }
        throw error
    }
    for peer in peers { await peer.peer.stop() }
}

/// Group chats (issue 14) with real MDK 0.8.0 peers: creating, joining, adding, removing, leaving
/// and renaming, in both directions, over our embedded relay and rust-nostr's.
@Suite(.serialized, .timeLimit(.minutes(4)), .enabled(if: InteropKit.shouldRun, "interop kit (shared/interop + venv) not found"))
struct MDKGroupInteropTests {
    /// We create a named group with two MDK peers; all three talk; every side sees the name and
    /// the three members.
    @Test(arguments: InteropRelay.allCases)
    func weCreateANamedGroupWithTwoMDKPeers(relay: InteropRelay) async throws {
        try await InteropContext.run(relay) { ctx in
            let us = await ctx.us
            _ = try await ctx.mdk.call(["cmd": "publish_key_package"])
            try await withPeers(["carol"], on: ctx) { peers in
                let carol = peers[0]
                let created = try await us.client.createGroup(
                    name: "Trio", description: "three of us", members: [ctx.mdkKey, carol.key], admins: [ctx.mdkKey])
                #expect(created.isNew)
                #expect(created.welcomes.count == 2)
                #expect(created.welcomes.values.allSatisfy { $0.isSent })
                #expect(created.chat.peer == nil)
                #expect(created.chat.name == "Trio")
                #expect(Set(created.chat.admins) == [us.publicKey, ctx.mdkKey])
                for peer in [ctx.mdk, carol.peer] {
                    let welcome = try await peer.waitForEvent("welcome")
                    #expect(welcome.string("group_id") == created.chat.id.description)
                    #expect(welcome.string("group_name") == "Trio")
                    #expect(welcome.int("member_count") == 3)
                    #expect(welcome.string("from_pubkey") == us.publicKey.hex)
                }
                let group = created.chat.id.description
                _ = try await us.client.send(text: "hello trio", to: created.chat.id)
                for peer in [ctx.mdk, carol.peer] {
                    let got = try await peer.waitForEvent("message") { $0.string("text") == "hello trio" }
                    #expect(got.string("from_pubkey") == us.publicKey.hex)
                }
                try await ctx.mdkSends("hi from mdk", in: group)
                _ = try await carol.peer.waitForEvent("message") { $0.string("text") == "hi from mdk" }
                _ = try await carol.peer.call(["cmd": "send", "group_id": group, "text": "carol says hi"])
                #expect(try await us.waitForMessage("carol says hi").sender == carol.key)
                _ = try await ctx.mdk.waitForEvent("message") { $0.string("text") == "carol says hi" }

                for peer in [ctx.mdk, carol.peer] {
                    let seen = try await ExtraPeer.members(of: peer, group)
                    #expect(seen.name == "Trio")
                    #expect(seen.members == [us.publicKey, ctx.mdkKey, carol.key])
                    #expect(seen.admins == [us.publicKey, ctx.mdkKey])
                }
            }
        }
    }

    /// An MDK admin creates a group with us and another MDK peer; we accept, talk, and follow the
    /// rename, the add and the remove MDK commits (each with its system line).
    @Test(arguments: InteropRelay.allCases)
    func mdkAdminCreatesAGroupAndWeFollowItsChanges(relay: InteropRelay) async throws {
        try await InteropContext.run(relay) { ctx in
            let us = await ctx.us
            _ = try await us.client.publishKeyPackage()
            try await withPeers(["carol", "dave"], on: ctx) { peers in
                let (carol, dave) = (peers[0], peers[1])
                let created = try await ctx.mdk.call([
                    "cmd": "create_group", "members": [us.publicKey.npub, carol.key.npub], "name": "MDK group",
                    "description": "made by mdk",
                ])
                let group = try #require(created.string("group_id"))
                let (chat, inviter) = try await us.waitForWelcome()
                #expect(inviter == ctx.mdkKey)
                #expect(chat.name == "MDK group")
                #expect(chat.groupDescription == "made by mdk")
                #expect(chat.peer == nil)
                #expect(Set(chat.members) == [us.publicKey, ctx.mdkKey, carol.key])
                #expect(chat.admins == [ctx.mdkKey])
                _ = try await us.waitForCommit(epoch: 2, by: us.publicKey)
                _ = try await ctx.mdk.waitForEvent("commit") { $0.int("epoch") == 2 }
                _ = try await carol.peer.waitForEvent("commit") { $0.int("epoch") == 2 }

                try await ctx.weSend("hello from swift", in: chat.id)
                _ = try await carol.peer.waitForEvent("message") { $0.string("text") == "hello from swift" }
                try await ctx.mdkSends("hello from mdk", in: group)

                _ = try await ctx.mdk.call(["cmd": "update_group_data", "group_id": group, "name": "Renamed"])
                #expect(try await us.waitForCommit(epoch: 3, by: ctx.mdkKey) == ctx.mdkKey)
                #expect(try await us.client.chat(chat.id)?.name == "Renamed")
                let renamed = try #require(try await us.allMessages(chat.id).last { $0.deliveryState == .notice })
                #expect(SystemNotice(content: renamed.content) == SystemNotice(change: .renamed, actor: ctx.mdkKey, subject: ctx.mdkKey))

                _ = try await ctx.mdk.call(["cmd": "add_members", "group_id": group, "members": [dave.key.npub]])
                #expect(try await us.waitForCommit(epoch: 4, by: ctx.mdkKey) == ctx.mdkKey)
                #expect(Set(try #require(try await us.client.chat(chat.id)).members) == [us.publicKey, ctx.mdkKey, carol.key, dave.key])
                _ = try await dave.peer.waitForEvent("welcome")
                _ = try await dave.peer.call(["cmd": "send", "group_id": group, "text": "dave is here"])
                #expect(try await us.waitForMessage("dave is here").sender == dave.key)

                _ = try await ctx.mdk.call(["cmd": "remove_members", "group_id": group, "members": [carol.key.npub]])
                #expect(try await us.waitForCommit(epoch: 5, by: ctx.mdkKey) == ctx.mdkKey)
                let after = try #require(try await us.client.chat(chat.id))
                #expect(Set(after.members) == [us.publicKey, ctx.mdkKey, dave.key])
                let removed = try #require(try await us.allMessages(chat.id).last { $0.deliveryState == .notice })
                #expect(SystemNotice(content: removed.content) == SystemNotice(change: .removed, actor: ctx.mdkKey, subject: carol.key))
                try await ctx.weSend("still here", in: chat.id)
                _ = try await dave.peer.waitForEvent("message") { $0.string("text") == "still here" }
            }
        }
    }

    /// We add an MDK peer to our group, then remove it: the removed peer cannot read what follows,
    /// the others keep talking.
    @Test(arguments: InteropRelay.allCases)
    func weAddThenRemoveAnMDKPeer(relay: InteropRelay) async throws {
        try await InteropContext.run(relay) { ctx in
            let us = await ctx.us
            _ = try await ctx.mdk.call(["cmd": "publish_key_package"])
            try await withPeers(["carol"], on: ctx) { peers in
                let carol = peers[0]
                let created = try await us.client.createGroup(name: "Grow", members: [ctx.mdkKey])
                let group = created.chat.id.description
                _ = try await ctx.mdk.waitForEvent("welcome")

                let added = try await us.client.addMembers([carol.key], to: created.chat.id)
                #expect(added.commit.epoch == 2)
                #expect(added.welcomes[carol.key]?.isSent == true)
                #expect(Set(added.commit.chat.members) == [us.publicKey, ctx.mdkKey, carol.key])
                _ = try await ctx.mdk.waitForEvent("commit") { $0.int("epoch") == 2 }
                let welcome = try await carol.peer.waitForEvent("welcome")
                #expect(welcome.int("member_count") == 3)
                _ = try await carol.peer.call(["cmd": "send", "group_id": group, "text": "carol joined"])
                #expect(try await us.waitForMessage("carol joined").sender == carol.key)
                _ = try await ctx.mdk.waitForEvent("message") { $0.string("text") == "carol joined" }

                let removed = try await us.client.removeMembers([carol.key], from: created.chat.id)
                #expect(removed.epoch == 3)
                #expect(Set(removed.chat.members) == [us.publicKey, ctx.mdkKey])
                _ = try await ctx.mdk.waitForEvent("commit") { $0.int("epoch") == 3 }
                try await ctx.weSend("carol must not read this", in: created.chat.id)
                try await ctx.mdkSends("nor this", in: group)
                // Carol got the commit removing her; nothing after it opens for her.
                await #expect(throws: (any Error).self) {
                    _ = try await carol.peer.waitForEvent("message", timeout: 3) {
                        $0.string("text") == "carol must not read this" || $0.string("text") == "nor this"
                    }
                }
                let seen = try await ExtraPeer.members(of: ctx.mdk, group)
                #expect(seen.epoch == 3)
                #expect(seen.members == [us.publicKey, ctx.mdkKey])
            }
        }
    }

    /// An MDK member leaves our group. MDK 0.8.0 auto-commits a SelfRemove at ANY member (not only
    /// admins), so our commit (we are the admin) and the other MDK member's race for the same
    /// epoch; MDK keeps its own and reports ours unprocessable, and we follow its branch once its
    /// traffic arrives (§5.7 with the alternate branch). Either way everyone agrees on the members
    /// and the epoch, and keeps talking.
    @Test(arguments: InteropRelay.allCases)
    func mdkMemberLeavesAndTheGroupConverges(relay: InteropRelay) async throws {
        try await InteropContext.run(relay, allowMDKErrors: true) { ctx in
            let us = await ctx.us
            _ = try await ctx.mdk.call(["cmd": "publish_key_package"])
            try await withPeers(["carol"], on: ctx) { peers in
                let carol = peers[0]
                let created = try await us.client.createGroup(name: "Leavers", members: [ctx.mdkKey, carol.key])
                let group = created.chat.id.description
                _ = try await ctx.mdk.waitForEvent("welcome")
                _ = try await carol.peer.waitForEvent("welcome")

                _ = try await carol.peer.call(["cmd": "leave_group", "group_id": group])
                _ = try await us.waitForCommit(epoch: 2)
                _ = try await ctx.mdk.waitForEvent("proposal")
                try await ctx.mdkSends("after carol left", in: group)
                try await ctx.weSend("indeed", in: created.chat.id)
                let after = try #require(try await us.client.chat(created.chat.id))
                #expect(Set(after.members) == [us.publicKey, ctx.mdkKey])
                #expect(after.epoch == 2)
                let notice = try #require(try await us.allMessages(created.chat.id).last { $0.deliveryState == .notice })
                let line = try #require(SystemNotice(content: notice.content))
                #expect(line.change == .left)
                #expect(line.subject == carol.key)
                let seen = try await ExtraPeer.members(of: ctx.mdk, group)
                #expect(seen.epoch == 2)
                #expect(seen.members == [us.publicKey, ctx.mdkKey])
            }
        }
    }

    /// We leave a group MDK administers: MDK commits our SelfRemove, our chat becomes inactive.
    /// (The other MDK member auto-commits it too, MDK's any-member rule, so the two MDK peers may
    /// race and report each other's commit; that is between them.)
    @Test(arguments: InteropRelay.allCases)
    func weLeaveAGroupMDKAdministers(relay: InteropRelay) async throws {
        try await InteropContext.run(relay, allowMDKErrors: true) { ctx in
            let us = await ctx.us
            _ = try await us.client.publishKeyPackage()
            try await withPeers(["carol"], on: ctx) { peers in
                let carol = peers[0]
                let created = try await ctx.mdk.call([
                    "cmd": "create_group", "members": [us.publicKey.npub, carol.key.npub], "name": "Exit",
                ])
                let group = try #require(created.string("group_id"))
                let (chat, _) = try await us.waitForWelcome()
                _ = try await us.waitForCommit(epoch: 2, by: us.publicKey)
                _ = try await ctx.mdk.waitForEvent("commit") { $0.int("epoch") == 2 }

                let result = try await us.client.leaveGroup(chat.id)
                #expect(result.isSent)
                let proposal = try await ctx.mdk.waitForEvent("proposal")
                #expect(proposal.string("state") == "committed")
                var status = try await us.client.chat(chat.id)?.status
                for _ in 0..<50 where status != .inactive {
                    try await Task.sleep(for: .milliseconds(200))
                    status = try await us.client.chat(chat.id)?.status
                }
                #expect(status == .inactive)
                await #expect(throws: MarmotClientError.self) { _ = try await us.client.send(text: "too late", to: chat.id) }
                let seen = try await ExtraPeer.members(of: ctx.mdk, group)
                #expect(seen.members == [ctx.mdkKey, carol.key])
                // The other MDK member's competing commit of our SelfRemove, when it comes, finds
                // us out of the group: dropped as "not a member", nothing else may be.
                try await Task.sleep(for: .seconds(1))
                let drops = await us.pendingEvents().compactMap { event -> DropReason? in
                    if case .dropped(_, let reason) = event { reason } else { nil }
                }
                #expect(drops.allSatisfy { $0 == .mls(.notAMember) }, "we dropped: \(drops)")
            }
        }
    }

    /// Our own two clients and one MDK peer in one group, with a self-update from each side in
    /// between; everyone keeps reading everyone.
    @Test(arguments: InteropRelay.allCases)
    func ourTwoClientsAndMDKWithSelfUpdates(relay: InteropRelay) async throws {
        try await InteropContext.run(relay) { ctx in
            let us = await ctx.us
            let second = try await TestAccount("swift2", relayURLs: [ctx.relay.url])
            do {
                _ = try await ctx.mdk.call(["cmd": "publish_key_package"])
                _ = try await second.client.publishKeyPackage()
                let created = try await us.client.createGroup(name: "Mixed", members: [ctx.mdkKey, second.publicKey])
                let id = created.chat.id
                let group = id.description
                _ = try await ctx.mdk.waitForEvent("welcome")
                let (joined, _) = try await second.waitForWelcome()
                #expect(joined.name == "Mixed")
                // The joiner's MIP-02 self-update.
                #expect(try await second.waitForCommit(epoch: 2) == second.publicKey)
                #expect(try await us.waitForCommit(epoch: 2) == second.publicKey)
                _ = try await ctx.mdk.waitForEvent("commit") { $0.int("epoch") == 2 }

                _ = try await ctx.mdk.call(["cmd": "self_update", "group_id": group])
                #expect(try await us.waitForCommit(epoch: 3) == ctx.mdkKey)
                #expect(try await second.waitForCommit(epoch: 3) == ctx.mdkKey)

                let update = try await us.client.selfUpdate(id)
                #expect(update.epoch == 4)
                #expect(try await second.waitForCommit(epoch: 4) == us.publicKey)
                _ = try await ctx.mdk.waitForEvent("commit") { $0.int("epoch") == 4 }
                #expect(await us.epochState(id)?.authenticator == second.epochState(id)?.authenticator)

                _ = try await second.client.send(text: "from swift2", to: id)
                #expect(try await us.waitForMessage("from swift2").sender == second.publicKey)
                _ = try await ctx.mdk.waitForEvent("message") { $0.string("text") == "from swift2" }
                _ = try await ctx.mdk.call(["cmd": "send", "group_id": group, "text": "from mdk"])
                _ = try await us.waitForMessage("from mdk")
                _ = try await second.waitForMessage("from mdk")
                try await ctx.weSend("from swift1", in: id)
                _ = try await second.waitForMessage("from swift1")
                let seen = try await ExtraPeer.members(of: ctx.mdk, group)
                #expect(seen.epoch == 4)
                #expect(seen.members == [us.publicKey, ctx.mdkKey, second.publicKey])
            } catch {
                await second.shutdown()
                throw error
            }
            await second.shutdown()
        }
    }
}
