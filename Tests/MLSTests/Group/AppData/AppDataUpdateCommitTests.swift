import Foundation
import Testing
@testable import MLS

/// AppDataUpdate proposals committed inline and by reference change every member's GroupContext the
/// same way (draft-ietf-mls-extensions §AppDataUpdate; Marmot v2 rename, admins, routing, disband).
@Suite struct AppDataUpdateCommitTests {
    @Test func proposalRoundTripsAsARealCase() throws {
        let proposal = Proposal.appDataUpdate(.update(0x8001, Data([1, 0x41, 0])))
        #expect(proposal.tlsSerialized == Data([0x00, 0x08, 0x80, 0x01, 0x01, 0x03, 0x01, 0x41, 0x00]))
        let decoded = try Proposal(tlsSerialized: proposal.tlsSerialized)
        guard case .appDataUpdate(let body) = decoded else {
            Issue.record("decoded as \(decoded)")
            return
        }
        #expect(body == .update(0x8001, Data([1, 0x41, 0])))
        let remove = Proposal.appDataUpdate(.remove(0x8005))
        #expect(remove.tlsSerialized == Data([0x00, 0x08, 0x80, 0x05, 0x02]))
        #expect(try Proposal(tlsSerialized: remove.tlsSerialized) == remove)
        #expect(!ProposalType.appDataUpdate.requiresPath)
    }

    @Test func inlineUpdatesReachEveryMember() throws {
        var groups = try AppDataFixture.makeGroup(["alice", "bob", "carol"])
        let rename = AppDataUpdate.update(0x8001, Data([2, 0x68, 0x69, 0]))
        let routing = AppDataUpdate.update(0x8004, Data(repeating: 7, count: 33))
        let (pending, results) = try GroupTest.commit(by: 0, in: &groups) {
            try $0.commit(proposals: [.appDataUpdate(rename), .appDataUpdate(routing)])
        }
        try AppDataFixture.expectInSync(groups)
        let dictionary = try AppDataFixture.dictionary(of: groups[1])
        #expect(dictionary.componentIDs == [0x8001, 0x8004, 0x800c])
        #expect(dictionary[0x8001] == rename.update && dictionary[0x8004] == routing.update)
        #expect(groups[0].extensions.last?.type == .appDataDictionary)
        #expect(groups[0].extensions.first == AppDataFixture.required)

        // No UpdatePath is needed, and the summary says what changed, on both sides.
        #expect(!pending.summary.hasUpdatePath)
        for case .commit(let summary) in results + [.commit(pending.summary)] {
            #expect(summary.updatedComponentIDs == [0x8001, 0x8004])
            #expect(summary.removedComponentIDs.isEmpty)
            #expect(summary.appDataUpdates.map(\.update) == [rename, routing])
            #expect(summary.appDataUpdates.allSatisfy { $0.sender == .member(leafIndex: LeafIndex(0)) && $0.reference == nil })
            #expect(summary.newExtensions == groups[0].extensions)
            #expect(summary.extensionsChanged)
            #expect(summary.proposals.map(\.proposal.type) == [.appDataUpdate, .appDataUpdate])
        }
        try GroupTest.send("after rename", from: 2, in: &groups)
    }

    @Test func proposalsByReferenceAreApplied() throws {
        var groups = try AppDataFixture.makeGroup(["alice", "bob", "carol"])
        let update = AppDataUpdate.update(0x8001, Data([1, 0x42, 0]))
        let proposal = try groups[1].propose(.appDataUpdate(update))
        guard case .publicMessage = proposal.body else {
            Issue.record("v2 proposals are PublicMessage")
            return
        }
        for index in [0, 2] {
            guard case .proposal(let pending) = try groups[index].process(proposal) else {
                Issue.record("expected a pending proposal")
                return
            }
            #expect(pending.proposal == .appDataUpdate(update))
        }
        #expect(groups[0].committableProposals().count == 1)
        let (pending, results) = try GroupTest.commit(by: 0, in: &groups) { try $0.commit() }
        try AppDataFixture.expectInSync(groups)
        #expect(try AppDataFixture.dictionary(of: groups[2])[0x8001] == update.update)
        for case .commit(let summary) in results + [.commit(pending.summary)] {
            #expect(summary.appDataUpdates.count == 1)
            #expect(summary.appDataUpdates.first?.sender == .member(leafIndex: LeafIndex(1)))
            #expect(summary.appDataUpdates.first?.reference != nil)
        }
        // Bob's own view of the commit that covered his proposal.
        guard case .commit(let bobSummary) = results[0] else {
            Issue.record("expected a commit")
            return
        }
        #expect(bobSummary.updatedComponentIDs == [0x8001])
    }

    @Test func removeDeletesTheComponent() throws {
        var groups = try AppDataFixture.makeGroup(["alice", "bob"])
        let (_, results) = try GroupTest.commit(by: 0, in: &groups) {
            try $0.commit(proposals: [.appDataUpdate(.remove(0x8001)), .appDataUpdate(.update(0x800c, Data([1])))])
        }
        try AppDataFixture.expectInSync(groups)
        #expect(try AppDataFixture.dictionary(of: groups[1]).componentIDs == [0x800c])
        guard case .commit(let summary) = results[0] else {
            Issue.record("expected a commit")
            return
        }
        #expect(summary.removedComponentIDs == [0x8001] && summary.updatedComponentIDs == [0x800c])
    }

    @Test func updatesAfterAGroupContextExtensionsProposalApplyToItsResult() throws {
        var groups = try AppDataFixture.makeGroup(["alice", "bob"])
        // A GroupContextExtensions proposal that reorders the extensions but leaves the dictionary's
        // bytes alone is allowed; the AppDataUpdate after it changes the dictionary, which moves last.
        let reordered = Array(groups[0].extensions.reversed())
        try GroupTest.commit(by: 0, in: &groups) {
            try $0.commit(proposals: [
                .groupContextExtensions(GroupContextExtensions(extensions: reordered)),
                .appDataUpdate(.update(0x8001, Data([1, 0x43, 0]))),
            ])
        }
        try AppDataFixture.expectInSync(groups)
        #expect(groups[1].extensions.map(\.type) == [.requiredCapabilities, .appDataDictionary])
        #expect(try AppDataFixture.dictionary(of: groups[1])[0x8001] == Data([1, 0x43, 0]))
    }

    @Test func ownInvalidCommitsAreRefusedBeforeSending() throws {
        var groups = try AppDataFixture.makeGroup(["alice", "bob"])
        var alice = groups[0]
        #expect(throws: GroupError.invalidProposalList(.multipleAppDataUpdates(componentID: 0x8001))) {
            try alice.commit(proposals: [.appDataUpdate(.update(0x8001, Data([0, 0]))), .appDataUpdate(.remove(0x8001))])
        }
        #expect(throws: GroupError.invalidProposalList(
            .invalidAppDataUpdate(position: 0, .removeOfAbsentComponent(0x8005)))) {
            try alice.commit(proposals: [.appDataUpdate(.remove(0x8005))])
        }
        var changed = try AppDataFixture.extensions([ComponentData(componentID: 0x8001, data: Data([0, 0]))])
        changed.reverse()
        #expect(throws: GroupError.invalidProposalList(.groupContextExtensionsChangeAppDataDictionary)) {
            try alice.commit(proposals: [.groupContextExtensions(GroupContextExtensions(extensions: changed))])
        }
        #expect(throws: GroupError.self) { try groups[0].propose(.appDataUpdate(.remove(0x8005))) }
        #expect(alice.epoch == groups[1].epoch)
    }

    @Test func pendingUpdatesOfOneComponentCommitOnlyTheLatest() throws {
        var groups = try AppDataFixture.makeGroup(["alice", "bob"])
        let first = try groups[1].propose(.appDataUpdate(.update(0x8001, Data([1, 0x31, 0]))))
        let second = try groups[1].propose(.appDataUpdate(.update(0x8001, Data([1, 0x32, 0]))))
        _ = try groups[0].process(first)
        _ = try groups[0].process(second)
        let chosen = groups[0].committableProposals()
        #expect(chosen.map(\.proposal) == [.appDataUpdate(.update(0x8001, Data([1, 0x32, 0])))])
        try GroupTest.commit(by: 0, in: &groups) { try $0.commit() }
        try AppDataFixture.expectInSync(groups)
        #expect(try AppDataFixture.dictionary(of: groups[1])[0x8001] == Data([1, 0x32, 0]))
    }

    @Test func addedMemberJoinsWithTheUpdatedDictionary() throws {
        var groups = try AppDataFixture.makeGroup(["alice", "bob"])
        let (dave, daveKeys) = try KeyPackage.create(
            credential: AppDataFixture.credential("dave"), capabilities: AppDataFixture.capabilities, signer: .generate())
        let admins = AppDataUpdate.update(0x8003, Data(repeating: 5, count: 33))
        let (pending, _) = try GroupTest.commit(by: 0, in: &groups) {
            try $0.commit(adding: [dave], proposals: [.appDataUpdate(admins)])
        }
        let joined = try MLSGroup.join(
            welcome: try #require(pending.welcome), keyPackage: dave, privateMaterial: daveKeys, configuration: .marmotV2)
        groups.append(joined)
        try AppDataFixture.expectInSync(groups)
        #expect(try AppDataFixture.dictionary(of: joined)[0x8003] == admins.update)
    }

    @Test func memberWithoutAppDataUpdateSupportRefusesIt() throws {
        // No required_capabilities: Bob may join without listing app_data_update (§12.2 then makes
        // every AppDataUpdate commit invalid while he is a member).
        var limited = AppDataFixture.capabilities
        limited.proposals = [.selfRemove]
        var alice = try MLSGroup.create(
            groupID: GroupID(GroupTestClient.provider.randomBytes(32)), signer: .generate(),
            credential: AppDataFixture.credential("alice"), capabilities: AppDataFixture.capabilities,
            groupContextExtensions: [Extension(try AppDataDictionary(AppDataFixture.initialComponents))],
            configuration: .marmotV2)
        let (bobPackage, bobKeys) = try KeyPackage.create(
            credential: AppDataFixture.credential("bob"), capabilities: limited, signer: .generate())
        let added = try alice.commit(adding: [bobPackage])
        alice = added.newGroup
        var bob = try MLSGroup.join(
            welcome: try #require(added.welcome), keyPackage: bobPackage, privateMaterial: bobKeys, configuration: .marmotV2)
        let update = Proposal.appDataUpdate(.update(0x8001, Data([1, 0x41, 0])))
        #expect(throws: GroupError.invalidProposalList(.proposalTypeUnsupported(.appDataUpdate, member: LeafIndex(1)))) {
            try alice.commit(proposals: [update])
        }
        // Alice sends it anyway, with the GroupContext she computes; Bob refuses it.
        var hostile = alice
        let commit = try HostileMember.commit(
            [.proposal(update)], newExtensions: try alice.extensions.applyingAppDataUpdates([try #require(update.appDataUpdate)]),
            by: &hostile)
        HostileMember.expectRejected(commit, by: &bob) {
            $0 == .invalidProposalList(.proposalTypeUnsupported(.appDataUpdate, member: LeafIndex(1)))
        }
    }
}
