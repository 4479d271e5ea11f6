import Foundation
import Testing
@testable import MLS

/// A member who really sends commits and proposals that break the AppDataUpdate rules (each signed,
/// framed and confirmation-tagged correctly, so only the rule is wrong) is refused by every other
/// member, whose state stays as it was (draft-ietf-mls-extensions §AppDataUpdate; MDK 0.9.14).
@Suite struct AppDataUpdateRejectionTests {
    /// Bob (leaf 1) is the hostile member; Alice and Carol process what he sends.
    static func group() throws -> [MLSGroup] { try AppDataFixture.makeGroup(["alice", "bob", "carol"]) }

    func expectRejected(
        _ message: MLSMessage, by groups: inout [MLSGroup], _ expected: GroupError,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for index in [0, 2] {
            HostileMember.expectRejected(message, by: &groups[index], sourceLocation: sourceLocation) { $0 == expected }
        }
    }

    func extensions(_ group: MLSGroup, applying updates: [AppDataUpdate]) throws -> [Extension] {
        try group.extensions.applyingAppDataUpdates(updates)
    }

    @Test func removeOfAnAbsentComponentIsRejected() throws {
        var groups = try Self.group()
        var bob = groups[1]
        // As OpenMLS would apply it: the remove changes nothing.
        let commit = try HostileMember.commit(
            [.proposal(.appDataUpdate(.remove(0x8005)))], newExtensions: bob.extensions, by: &bob)
        expectRejected(
            commit, by: &groups, .invalidProposalList(.invalidAppDataUpdate(position: 0, .removeOfAbsentComponent(0x8005))))

        let proposal = try HostileMember.frame(
            .proposal(.appDataUpdate(.remove(0x8005))), by: &bob, wireFormat: .publicMessage)
        for index in [0, 2] {
            HostileMember.expectRejected(proposal, by: &groups[index]) {
                if case .invalidProposal = $0 { return true }
                return false
            }
        }
    }

    @Test func twoOperationsOnOneComponentAreRejected() throws {
        var groups = try Self.group()
        var bob = groups[1]
        let first = AppDataUpdate.update(0x8001, Data([1, 0x41, 0]))
        let second = AppDataUpdate.update(0x8001, Data([1, 0x42, 0]))
        // Two updates, the last one winning, as the draft would let an application define it.
        let twoUpdates = try HostileMember.commit(
            [.proposal(.appDataUpdate(first)), .proposal(.appDataUpdate(second))],
            newExtensions: try extensions(bob, applying: [second]), by: &bob)
        expectRejected(twoUpdates, by: &groups, .invalidProposalList(.multipleAppDataUpdates(componentID: 0x8001)))
        // An update and a remove of the same component.
        let updateAndRemove = try HostileMember.commit(
            [.proposal(.appDataUpdate(first)), .proposal(.appDataUpdate(.remove(0x8001)))],
            newExtensions: try extensions(bob, applying: [.remove(0x8001)]), by: &bob)
        expectRejected(updateAndRemove, by: &groups, .invalidProposalList(.multipleAppDataUpdates(componentID: 0x8001)))
        // One inline and one by reference: Bob's own earlier proposal, which Alice and Carol hold.
        let proposal = try groups[1].propose(.appDataUpdate(first))
        bob = groups[1]
        _ = try groups[0].process(proposal)
        _ = try groups[2].process(proposal)
        let ref = try #require(bob.proposals.first?.ref)
        let mixed = try HostileMember.commit(
            [.reference(ref), .proposal(.appDataUpdate(second))],
            newExtensions: try extensions(bob, applying: [second]), by: &bob)
        expectRejected(mixed, by: &groups, .invalidProposalList(.multipleAppDataUpdates(componentID: 0x8001)))
    }

    @Test func groupContextExtensionsMayNotRewriteTheDictionary() throws {
        var groups = try Self.group()
        var bob = groups[1]
        // Bob rewrites the lifecycle component through GroupContextExtensions, bypassing AppDataUpdate.
        let rewritten = try AppDataFixture.extensions([
            ComponentData(componentID: 0x8001, data: Data([0, 0])), ComponentData(componentID: 0x800c, data: Data([1])),
        ])
        let commit = try HostileMember.commit(
            [.proposal(.groupContextExtensions(GroupContextExtensions(extensions: rewritten)))],
            newExtensions: rewritten, path: true, by: &bob)
        expectRejected(commit, by: &groups, .invalidProposalList(.groupContextExtensionsChangeAppDataDictionary))

        // Dropping app_data_update from required_capabilities in the same proposal does not help:
        // the current GroupContext requires it.
        let unrequired = [
            Extension(RequiredCapabilities(extensionTypes: [.appDataDictionary], proposalTypes: [], credentialTypes: [])),
            rewritten[1],
        ]
        let sneaky = try HostileMember.commit(
            [.proposal(.groupContextExtensions(GroupContextExtensions(extensions: unrequired)))],
            newExtensions: unrequired, path: true, by: &bob)
        expectRejected(sneaky, by: &groups, .invalidProposalList(.groupContextExtensionsChangeAppDataDictionary))

        // Nor may it drop the dictionary.
        let dropped = [AppDataFixture.required]
        let dropping = try HostileMember.commit(
            [.proposal(.groupContextExtensions(GroupContextExtensions(extensions: dropped)))],
            newExtensions: dropped, path: true, by: &bob)
        expectRejected(dropping, by: &groups, .invalidProposalList(.groupContextExtensionsChangeAppDataDictionary))

        // As a standalone proposal it is refused on receipt.
        let proposal = try HostileMember.frame(
            .proposal(.groupContextExtensions(GroupContextExtensions(extensions: rewritten))), by: &bob,
            wireFormat: .publicMessage)
        for index in [0, 2] {
            HostileMember.expectRejected(proposal, by: &groups[index]) {
                if case .invalidProposal = $0 { return true }
                return false
            }
        }
    }

    @Test func appDataUpdateBeforeGroupContextExtensionsIsRejected() throws {
        var groups = try Self.group()
        var bob = groups[1]
        let update = AppDataUpdate.update(0x8001, Data([1, 0x41, 0]))
        let reordered = Array(bob.extensions.reversed())
        let newExtensions = try reordered.applyingAppDataUpdates([update])
        let commit = try HostileMember.commit(
            [.proposal(.appDataUpdate(update)), .proposal(.groupContextExtensions(GroupContextExtensions(extensions: reordered)))],
            newExtensions: newExtensions, path: true, by: &bob)
        expectRejected(commit, by: &groups, .invalidProposalList(.appDataUpdateBeforeGroupContextExtensions(position: 0)))
    }

    @Test func commitThatIgnoresItsUpdateIsRejected() throws {
        var groups = try Self.group()
        var bob = groups[1]
        // Bob claims a GroupContext without the change his AppDataUpdate makes: the receivers apply
        // it, compute another GroupContext and key schedule, and the confirmation tag fails.
        let commit = try HostileMember.commit(
            [.proposal(.appDataUpdate(.update(0x8001, Data([1, 0x41, 0]))))], newExtensions: bob.extensions, by: &bob)
        expectRejected(commit, by: &groups, .badConfirmationTag)
        // The same commit with the update applied is accepted.
        let honest = try HostileMember.commit(
            [.proposal(.appDataUpdate(.update(0x8001, Data([1, 0x41, 0]))))],
            newExtensions: try extensions(bob, applying: [.update(0x8001, Data([1, 0x41, 0]))]), by: &bob)
        _ = try groups[0].process(honest)
        #expect(try AppDataFixture.dictionary(of: groups[0])[0x8001] == Data([1, 0x41, 0]))
    }

    @Test func unknownOperationIsRejected() throws {
        var groups = try Self.group()
        var bob = groups[1]
        let bogus = AppDataUpdate(componentID: 0x8001, operation: AppDataUpdateOperation(rawValue: 3))
        let commit = try HostileMember.commit(
            [.proposal(.appDataUpdate(bogus))], newExtensions: bob.extensions, by: &bob)
        for index in [0, 2] {
            let before = groups[index].serialized()
            // On the wire the operation byte does not decode.
            #expect {
                try groups[index].process(bytes: commit.tlsSerialized)
            } throws: { error in
                if case .malformedMessage = error as? GroupError { return true }
                return false
            }
            // Handed over already decoded, the proposal-list check refuses it.
            #expect(throws: GroupError.invalidProposalList(.invalidAppDataUpdate(position: 0, .unknownOperation(3)))) {
                try groups[index].process(commit)
            }
            #expect(groups[index].serialized() == before)
        }
        // The committer's own validation refuses it too.
        #expect(throws: GroupError.invalidProposalList(.invalidAppDataUpdate(position: 0, .unknownOperation(3)))) {
            try groups[0].commit(proposals: [.appDataUpdate(bogus)])
        }
    }
}
