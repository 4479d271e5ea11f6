import Foundation
import MLS
import Nostr
import Testing
@testable import MarmotWire

/// The lifecycle rule of MDK 0.9.14 (`validate_group_lifecycle_transition`), case by case: what a
/// commit may do to 0x800c, and the one shape of a disband.
@Suite struct V2LifecycleTransitionTests {
    let admin = Keys.generate().publicKey
    let other = Keys.generate().publicKey
    let members: Set<LeafIndex> = [LeafIndex(0), LeafIndex(1), LeafIndex(2)]

    /// A group state whose required list holds lifecycle when `required`, in state `lifecycle`.
    func state(_ lifecycle: GroupLifecycle?, required: Bool = true, admins: [PublicKey]? = nil) throws -> GroupComponents {
        var ids = [MarmotComponentID.adminPolicy, MarmotComponentID.accountIdentityProof]
        if required { ids.append(MarmotComponentID.lifecycle) }
        var dictionary = try AppDataDictionary()
        dictionary.set(MarmotComponentID.appComponents, Data(ComponentsList(ids).bytes))
        dictionary.set(MarmotComponentID.adminPolicy, Data(try AdminPolicy(admins: admins ?? [admin]).bytes))
        if let lifecycle { dictionary.set(MarmotComponentID.lifecycle, Data(lifecycle.bytes)) }
        return try GroupComponents(dictionary: dictionary)
    }

    func lifecycleUpdate(_ state: GroupLifecycle) -> Proposal {
        .appDataUpdate(.update(MarmotComponentID.lifecycle, Data(state.bytes)))
    }

    func policy(_ admins: [PublicKey]) throws -> Proposal {
        .appDataUpdate(.update(MarmotComponentID.adminPolicy, Data(try AdminPolicy(admins: admins).bytes)))
    }

    func removes(_ leaves: [UInt32]) -> [Proposal] { leaves.map { .remove(Remove(removed: LeafIndex($0))) } }

    func check(_ before: GroupComponents, _ after: GroupComponents, _ proposals: [Proposal], inline: Bool = true) throws(V2LifecycleError) {
        try V2LifecycleTransition.check(
            before: before, after: after, proposals: proposals.map { .init($0, isInline: inline) }, committerLeaf: LeafIndex(0),
            committer: admin, members: members)
    }

    @Test func theDisbandMDKSendsIsAccepted() throws {
        let proposals = removes([1, 2]) + [lifecycleUpdate(.disbanded), try policy([admin])]
        try check(try state(.active), try state(.disbanded), proposals)
        #expect(V2LifecycleTransition.disbands(before: try state(.active), after: try state(.disbanded)))
    }

    /// What we sent before this rule: the lifecycle update alone, refused by every MDK member.
    @Test func aBareLifecycleUpdateIsNotADisband() throws {
        #expect(throws: V2LifecycleError.disbandUpdateCount) {
            try check(try state(.active), try state(.disbanded), [lifecycleUpdate(.disbanded)])
        }
        #expect(throws: V2LifecycleError.disbandMustRemoveEveryOtherLeaf) {
            try check(try state(.active), try state(.disbanded), [lifecycleUpdate(.disbanded), try policy([admin])])
        }
    }

    @Test func everyOtherLeafMustGoAndNothingElse() throws {
        let base = [lifecycleUpdate(.disbanded), try policy([admin])]
        #expect(throws: V2LifecycleError.disbandMustRemoveEveryOtherLeaf) {
            try check(try state(.active), try state(.disbanded), removes([1]) + base)
        }
        #expect(throws: V2LifecycleError.forbiddenProposalInDisband) {
            try check(try state(.active), try state(.disbanded), removes([1, 2]) + base + [.selfRemove(SelfRemove())])
        }
        #expect(throws: V2LifecycleError.notInline) {
            try check(try state(.active), try state(.disbanded), removes([1, 2]) + base, inline: false)
        }
    }

    @Test func theAdminPolicyMustBeTheCommitterAlone() throws {
        #expect(throws: V2LifecycleError.disbandAdminPolicyNotCommitter) {
            try check(try state(.active), try state(.disbanded), removes([1, 2]) + [lifecycleUpdate(.disbanded), try policy([admin, other])])
        }
        #expect(throws: V2LifecycleError.disbandAdminPolicyNotCommitter) {
            try check(try state(.active), try state(.disbanded), removes([1, 2]) + [lifecycleUpdate(.disbanded), try policy([other])])
        }
        #expect(throws: V2LifecycleError.disbandUpdateCount) {
            try check(
                try state(.active), try state(.disbanded),
                removes([1, 2]) + [lifecycleUpdate(.disbanded), lifecycleUpdate(.disbanded), try policy([admin])])
        }
    }

    @Test func disbandedIsTerminalAndTheRestCannotMove() throws {
        #expect(throws: V2LifecycleError.disbandedIsTerminal) { try check(try state(.disbanded), try state(.disbanded), []) }
        #expect(throws: V2LifecycleError.disbandedIsTerminal) {
            try check(try state(.disbanded), try state(.active), [lifecycleUpdate(.active)])
        }
        #expect(throws: V2LifecycleError.redundantLifecycleUpdate) {
            try check(try state(.active), try state(.active), [lifecycleUpdate(.active)])
        }
        #expect(throws: V2LifecycleError.lifecycleUnrequired) {
            try check(try state(.active), try state(.active, required: false), [])
        }
        #expect(throws: V2LifecycleError.unsupportedTransition) {
            try check(try state(.active), try state(nil), [.appDataUpdate(.remove(MarmotComponentID.lifecycle))])
        }
        #expect(throws: V2LifecycleError.disbandWithoutRequiredLifecycle) {
            try check(try state(.active, required: false), try state(.disbanded, required: false), [lifecycleUpdate(.disbanded)])
        }
        // An ordinary commit that leaves lifecycle alone.
        try check(try state(.active), try state(.active, admins: [admin, other]), [try policy([admin, other])])
    }

    @Test func enablingLifecycleInstallsActiveWithItsListOnly() throws {
        let list = Proposal.appDataUpdate(.update(MarmotComponentID.appComponents, Data()))
        try check(try state(nil, required: false), try state(.active), [list, lifecycleUpdate(.active)])
        #expect(throws: V2LifecycleError.enablementNotActive) {
            try check(try state(nil, required: false), try state(nil, required: true), [list])
        }
        #expect(throws: V2LifecycleError.enablementWithOtherProposals) {
            try check(try state(nil, required: false), try state(.active), [list, lifecycleUpdate(.active)] + removes([1]))
        }
    }
}
