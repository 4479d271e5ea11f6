import Foundation
import MLS
import Marmot
import Nostr

/// The MLS group operations of `GroupChatBench` at one size, each once inside its own function, for
/// instruction counts beside the wall times (issue 27: wall times move on shared machines):
///
///     MARMOT_PROFILE_SIZE=200 valgrind --tool=callgrind --collect-atstart=no \
///         --toggle-collect='*ProfileTargets*measured*' .build/release/marmot-bench profile
///     callgrind_annotate --inclusive=yes callgrind.out.<pid> | grep measured
///
/// Only run when named (`marmot-bench profile`); the group is built first, outside the counted parts.
enum ProfileTargets {
    static func run() {
        let size = ProcessInfo.processInfo.environment["MARMOT_PROFILE_SIZE"].flatMap { Int($0) } ?? 200
        Bench.section("MLS operations at \(size) members, once each (for callgrind)")
        do {
            let (admin, member) = try group(size: size)
            let newcomer = try BenchGroup.keyPackage()
            let update = try measuredUpdateCreate(admin)
            try measuredUpdateProcess(member, update.message)
            let add = try measuredAddCreate(admin, newcomer.keyPackage)
            try measuredAddProcess(member, add.message)
            let removedLeaf = admin.members.last?.leafIndex ?? LeafIndex(1)
            let remove = try measuredRemoveCreate(admin, removedLeaf)
            try measuredRemoveProcess(member, remove.message)
            print("done: create and join, then self-update, add 1 and remove 1, each created and processed once")
        } catch {
            print("profile failed: \(error)")
        }
    }

    /// An admin's group of `size` members as `GroupChatBench` builds it, and one member joined.
    static func group(size: Int) throws -> (admin: MLSGroup, member: MLSGroup) {
        let setup = try BenchGroup(size: size, name: "profile \(size)")
        let pending = try measuredFound(setup)
        guard let welcome = pending.welcome else { throw BenchSkip("no Welcome") }
        return (pending.newGroup, try measuredJoin(setup, welcome))
    }

    /// The group created with every invitee added (the founding commit and its Welcome).
    @inline(never)
    static func measuredFound(_ setup: BenchGroup) throws -> PendingCommit {
        try setup.found()
    }

    /// The first invitee joining from the founding Welcome.
    @inline(never)
    static func measuredJoin(_ setup: BenchGroup, _ welcome: Welcome) throws -> MLSGroup {
        try setup.joinFirst(welcome)
    }

    @inline(never)
    static func measuredUpdateCreate(_ admin: MLSGroup) throws -> PendingCommit {
        var copy = admin
        return try copy.selfUpdate(signerRotation: SignerRotation(signer: .generate()))
    }

    @inline(never)
    static func measuredUpdateProcess(_ member: MLSGroup, _ message: MLSMessage) throws {
        var copy = member
        _ = try copy.process(message)
    }

    @inline(never)
    static func measuredAddCreate(_ admin: MLSGroup, _ keyPackage: KeyPackage) throws -> PendingCommit {
        var copy = admin
        return try copy.commit(adding: [keyPackage])
    }

    /// Returns the new epoch so the compiler does not merge it with the other process functions
    /// (identical bodies are folded into one symbol, which callgrind then cannot tell apart).
    @inline(never)
    @discardableResult
    static func measuredAddProcess(_ member: MLSGroup, _ message: MLSMessage) throws -> UInt64 {
        var copy = member
        _ = try copy.process(message)
        return copy.epoch
    }

    @inline(never)
    static func measuredRemoveCreate(_ admin: MLSGroup, _ leaf: LeafIndex) throws -> PendingCommit {
        var copy = admin
        return try copy.commit(removing: [leaf])
    }

    /// Returns the member count, for the reason `measuredAddProcess` returns the epoch.
    @inline(never)
    @discardableResult
    static func measuredRemoveProcess(_ member: MLSGroup, _ message: MLSMessage) throws -> Int {
        var copy = member
        _ = try copy.process(message)
        return copy.members.count
    }
}
