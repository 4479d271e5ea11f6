import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// A member floods proposals to make us drop another member's (issue 24, N5).
@Suite(.serialized, .timeLimit(.minutes(3))) struct ProposalFloodTests {
    /// v1: member A sends 64 cheap proposals, then admin M proposes A's removal and commits it by
    /// reference. A's flood fills only its own share of the pending proposals, so Bob keeps M's
    /// proposal and applies the commit. Before the fix the group-wide cap dropped M's proposal and
    /// Bob could never process the commit (stuck in the epoch for good).
    @Test func floodOfOneMemberCannotCrowdOutAnotherMembersProposal() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var (bob, m, a, chat) = try await RaceFixtures.v1(url, aIsAdmin: false)
        let extensions = try #require(a.group).extensions
        for index in 0..<ClientHarness.options.pendingProposalLimit {
            var group = try #require(a.group)
            // Distinct proposals (identical ones have the same reference and count once).
            let junk = try group.proposeGroupContextExtensions(extensions, authenticatedData: Data("\(index)".utf8))
            a.group = group
            await bob.client.deliverForTesting(try a.event(junk))
        }
        let aLeaf = try RaceFixtures.leaf(of: a.publicKey, in: m.group)
        let mLeaf = try #require(m.group?.ownLeafIndex)
        var group = try #require(m.group)
        let proposal = try group.proposeRemove(aLeaf)
        m.group = group
        await bob.client.deliverForTesting(try m.event(proposal))
        let commit = try m.commit {
            try $0.commit(includePendingProposals: true, proposalFilter: { $0.sender == .member(leafIndex: mLeaf) })
        }
        await bob.client.deliverForTesting(try m.event(commit.message, epochOf: commit.before))
        #expect(await bob.epochState(chat)?.authenticator == m.group?.epochAuthenticator)
        #expect(try await bob.client.chat(chat)?.members.contains(a.publicKey) == false)
        await bob.shutdown()
        await server.stop()
    }
}
