import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Proposals from a member running modified code (threat 2): we commit only what MDK commits.
@Suite(.serialized, .timeLimit(.minutes(2))) struct ProposalTrustTests {
    /// Alice (our client, admin) chats with a hostile member that joined legitimately.
    static func chatWithHostileMember(_ url: String) async throws -> (TestAccount, HostileParty, Chat, Set<EventID>) {
        var options = ClientHarness.options
        options.selfUpdateAfterJoin = false
        let alice = try await TestAccount("alice", relayURLs: [url], options: options)
        var mallory = HostileParty()
        try await mallory.publishKeyPackage(to: url)
        let created = try await alice.client.createChat(with: mallory.publicKey)
        try await mallory.joinFromRelay(url)
        var seen = Set<EventID>()
        _ = try await mallory.catchUp(url, seen: &seen)
        return (alice, mallory, created.chat, seen)
    }

    /// Mallory sends an Update proposal (a new leaf) and hopes Alice commits it. MDK ignores such
    /// proposals from others, and so do we: Alice's next commit rotates only her own leaf.
    @Test func updateProposalFromAnotherMemberIsNeverCommittedByUs() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (alice, mallory, chat, seen) = try await Self.chatWithHostileMember(url)
        var group = try #require(mallory.group)
        let proposal = try group.proposeUpdate()
        mallory.group = group
        #expect(try await RelayReads.publish(try mallory.event(proposal), to: url).isAccepted)
        try await Task.sleep(for: .milliseconds(300))

        let update = try await alice.client.selfUpdate(chat.id)
        #expect(update.epoch == 2)
        let results = try await mallory.catchUp(url, seen: &seen)
        let summary = try #require(results.compactMap { if case .commit(let s) = $0 { s } else { nil } }.first)
        let aliceLeaf = try #require(mallory.group?.members.first { NostrIdentity.publicKey($0.credential) == alice.publicKey })
        #expect(summary.updated == [aliceLeaf.leafIndex])
        #expect(summary.removed.isEmpty && summary.added.isEmpty)
        await alice.shutdown()
        await server.stop()
    }

    /// Mallory asks to leave with a SelfRemove proposal: Alice, the admin, commits it at once (as
    /// MDK does), the chat shows "npub… left" and is no longer a 1:1 with Mallory.
    @Test func selfRemoveIsCommittedByTheAdminAndShownInTheChat() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (alice, mallory, chat, seen) = try await Self.chatWithHostileMember(url)
        var group = try #require(mallory.group)
        let leave = try group.proposeSelfRemove()
        mallory.group = group
        #expect(try await RelayReads.publish(try mallory.event(leave), to: url).isAccepted)

        _ = try await alice.waitForCommit(epoch: 2, by: alice.publicKey)
        let results = try await mallory.catchUp(url, seen: &seen)
        let summary = try #require(results.compactMap { if case .commit(let s) = $0 { s } else { nil } }.first)
        #expect(summary.removedSelf)
        let after = try #require(try await alice.client.chat(chat.id))
        #expect(after.members == [alice.publicKey])
        #expect(after.peer == nil)
        let notice = try #require(try await alice.allMessages(chat.id).last)
        #expect(notice.deliveryState == .notice)
        #expect(SystemNotice(content: notice.content) == SystemNotice(change: .left, actor: alice.publicKey, subject: mallory.publicKey))
        #expect(await alice.client.chat(with: mallory.publicKey) == nil)
        await alice.shutdown()
        await server.stop()
    }

    /// Mallory, a member but no admin, answers Alice's commit with a competing commit for the same
    /// epoch that adds someone, dated later so it loses the race, then writes on her branch hoping
    /// Alice follows it there (the fork healing adopts a branch the other member is on). The losing
    /// commit is checked like a winning one and refused, so there is no branch to follow.
    @Test func losingCommitIsAuthorizedBeforeItCanBeFollowed() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (alice, mallory, chat, _) = try await Self.chatWithHostileMember(url)
        let update = try await alice.client.selfUpdate(chat.id)
        #expect(update.epoch == 2)
        let stranger = try HostileParty.keyPackage(claiming: Keys.generate().publicKey)
        let counter = try mallory.commit { try $0.commit(adding: [stranger.0]) }
        let counterEvent = try mallory.event(counter.message, createdAt: UnsignedEvent.now() + 60, epochOf: counter.before)
        #expect(try await RelayReads.publish(counterEvent, to: url).isAccepted)
        let (_, reason) = try await alice.waitForDrop { if case .refusedCompetingCommit = $0 { true } else { false } }
        #expect(reason.description.contains("not an admin"))

        var writer = mallory
        let rumor = try ChatRumor(author: mallory.publicKey, content: "come to my branch")
        var group = try #require(writer.group)
        let sealed = try group.encrypt(rumor.plaintext)
        writer.group = group
        #expect(try await RelayReads.publish(try writer.event(sealed), to: url).isAccepted)
        let (_, undecryptable) = try await alice.waitForDrop()
        #expect(undecryptable == .undecryptable)
        #expect(await alice.epochState(chat.id)?.epoch == 2)
        #expect(try await alice.client.chat(chat.id)?.members.count == 2)
        await alice.shutdown()
        await server.stop()
    }

    /// Mallory, a non-admin member, rotates her leaf into one whose credential claims Alice (the
    /// admin, and the reader herself): her later messages would show as Alice's. The identity of a
    /// leaf never changes (MIP-00), so Alice refuses the commit and stays where she was.
    @Test func selfUpdateCannotTakeAnotherMembersIdentity() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (alice, mallory, chat, _) = try await Self.chatWithHostileMember(url)
        let rotation = SignerRotation(
            signer: CipherSuiteProvider.mls128X25519.generateSignatureKey(), credential: NostrIdentity.credential(alice.publicKey))
        let forged = try mallory.commit { try $0.selfUpdate(signerRotation: rotation) }
        #expect(try await RelayReads.publish(try mallory.event(forged.message, epochOf: forged.before), to: url).isAccepted)
        let (_, reason) = try await alice.waitForDrop()
        #expect(reason.description.contains("credential"))
        #expect(await alice.epochState(chat.id)?.epoch == 1)
        #expect(try await alice.client.chat(chat.id)?.members.filter { $0 == alice.publicKey }.count == 1)
        await alice.shutdown()
        await server.stop()
    }

    /// A rumor whose text looks like a system line stays an ordinary message: notices are known by
    /// their delivery state, which no received rumor can have.
    @Test func memberCannotForgeASystemLine() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, mallory, chat, _) = try await Self.chatWithHostileMember(url)
        var writer = mallory
        let forged = SystemNotice(change: .removed, actor: alice.publicKey, subject: mallory.publicKey).content
        let rumor = try ChatRumor(author: mallory.publicKey, content: forged)
        var group = try #require(writer.group)
        let sealed = try group.encrypt(rumor.plaintext)
        writer.group = group
        #expect(try await RelayReads.publish(try writer.event(sealed), to: url).isAccepted)
        let stored = try await alice.waitForMessage(forged)
        #expect(stored.deliveryState == .received)
        #expect(stored.kind == .chatMessage)
        await alice.shutdown()
        await server.stop()
    }
}
