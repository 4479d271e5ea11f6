import Foundation
import Testing
@testable import MLS

/// A commit this member builds includes only the pending proposals that are still valid and that the
/// application's filter accepts, so a stale or unwanted proposal cannot block every later commit.
struct CommitProposalFilterTests {
    @Test func staleRemoveDoesNotBlockNextCommit() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol", "dave"])
        // Bob proposes removing Carol; before anyone commits it, Alice's own commit removes Carol.
        let staleRemove = try groups[1].proposeRemove(LeafIndex(2))
        for index in [0, 3] { _ = try groups[index].process(staleRemove) }
        try GroupTest.commit(by: 0, in: &groups) { try $0.commit(removing: [LeafIndex(2)], includePendingProposals: false) }
        groups.remove(at: 2)
        // The proposal is from the previous epoch and gone; now Dave keeps a Remove of the blank leaf
        // in the new epoch, as a hostile Bob would send it, bypassing his own checks.
        var bob = groups[1]
        let blankRemove = try HostileMember.frame(.proposal(.remove(Remove(removed: LeafIndex(2)))), by: &bob)
        #expect(throws: GroupError.self) { try groups[2].process(blankRemove) }
        // Inject it as pending (what an earlier, lenient version may have stored) and commit anyway.
        var dave = groups[2]
        dave.pendingProposals.append(PendingProposal(
            ref: ProposalRef(Data(repeating: 7, count: 32)), proposal: .remove(Remove(removed: LeafIndex(2))),
            sender: .member(leafIndex: LeafIndex(1))))
        #expect(dave.committableProposals().isEmpty)
        let pending = try dave.selfUpdate()
        groups[2] = pending.newGroup
        for index in [0, 1] { _ = try groups[index].process(pending.message) }
        GroupTest.expectInSync(groups)
    }

    @Test func updateFromRemovedMemberIsLeftOut() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol"])
        let update = try groups[2].proposeUpdate()
        _ = try groups[0].process(update)
        _ = try groups[1].process(update)
        // Bob proposes removing Carol too; Alice commits the Remove but not the Update.
        let remove = try groups[1].proposeRemove(LeafIndex(2))
        _ = try groups[0].process(remove)
        _ = try groups[2].process(remove)
        let chosen = groups[0].committableProposals()
        #expect(chosen.map(\.proposal.type) == [.remove])
        try GroupTest.commit(by: 0, in: &groups) { try $0.commit() }
        #expect(groups[0].member(at: LeafIndex(2)) == nil)
    }

    @Test func filterExcludesUpdateProposal() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob", "carol"])
        let update = try groups[1].proposeUpdate()
        for index in [0, 2] { _ = try groups[index].process(update) }
        let bobLeaf = try #require(groups[0].member(at: LeafIndex(1))).leafNode
        // The application (e.g. Marmot's admin rules) does not want to commit others' Updates.
        let pending = try groups[0].commit(forceUpdatePath: true) { $0.proposal.type != .update }
        groups[0] = pending.newGroup
        guard case .commit(let summary) = try groups[2].process(pending.message) else {
            Issue.record("expected a commit")
            return
        }
        #expect(summary.updated == [LeafIndex(0)])
        #expect(groups[2].member(at: LeafIndex(1))?.leafNode == bobLeaf)
        #expect(groups[0].member(at: LeafIndex(1))?.leafNode == bobLeaf)
        // Without the filter the Update is committed.
        var fresh = try GroupTest.makeGroup(["alice", "bob", "carol"])
        let update2 = try fresh[1].proposeUpdate()
        _ = try fresh[0].process(update2)
        #expect(fresh[0].committableProposals().map(\.proposal.type) == [.update])
        #expect(fresh[0].committableProposals { $0.proposal.type != .update }.isEmpty)
    }

    @Test func duplicateAddsOfOneIdentityAreCommittedOnce() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let dave = GroupTestClient("dave")
        // Two different KeyPackages of the same identity, proposed by Bob and by Alice.
        let (first, _) = try dave.keyPackage()
        let (second, _) = try GroupTestClient("dave").keyPackage()
        _ = try groups[0].process(try groups[1].proposeAdd(first))
        _ = try groups[0].proposeAdd(second)
        #expect(groups[0].committableProposals().count == 1)
        let pending = try groups[0].commit()
        #expect(pending.summary.added.count == 1)
    }

    @Test func newMemberProposalIsRefusedUnlessConfigured() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        // An outsider sends an Add of itself as new_member_proposal (§12.1.8), framed as a
        // PublicMessage signed with the key in its own KeyPackage.
        let outsider = GroupTestClient("mallory")
        let (keyPackage, _) = try outsider.keyPackage()
        let content = FramedContent(
            groupID: groups[0].groupID, epoch: groups[0].epoch, sender: .newMemberProposal,
            authenticatedData: Data(), body: .proposal(.add(Add(keyPackage: keyPackage))))
        let authenticated = try AuthenticatedContent.sign(
            content, wireFormat: .publicMessage, groupContext: groups[0].groupContext, signer: outsider.signer,
            provider: GroupTestClient.provider)
        let message = MLSMessage(.publicMessage(try PublicMessageProtection(
            epochSecrets: groups[0].epochSecrets, groupContext: groups[0].groupContext).protect(authenticated)))
        HostileMember.expectRejected(message, by: &groups[0]) {
            if case .senderNotAllowed = $0 { return true }
            return false
        }
        #expect(!GroupConfiguration.marmot.acceptNewMemberProposals)
        // A group configured to accept them keeps it as pending.
        var open = HostileMember.reconfigured(groups[0]) { $0.acceptNewMemberProposals = true }
        guard case .proposal(let kept) = try open.process(message) else {
            Issue.record("expected the proposal to be kept")
            return
        }
        #expect(kept.sender == .newMemberProposal)
    }
}
