import Foundation
import Testing
@testable import MLS

/// A KeyPackage lifetime is checked when this member adds it, not when it processes another
/// member's Add (RFC 9420 §7.3 only recommends it there): a member processing a commit late must not
/// fork from those who processed it in time.
struct AddLifetimeTests {
    @Test func lateProcessorDoesNotForkOnAddWhoseKeyPackageExpiredSinceCommit() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let now = UnixTime.now
        let (dave, _) = try GroupTestClient("dave").keyPackage(
            lifetime: Lifetime(notBefore: now - 3600, notAfter: now + 600))
        let pending = try groups[0].commit(adding: [dave])
        groups[0] = pending.newGroup

        // Bob is offline for an hour: the KeyPackage has expired when he processes the commit.
        groups[1].clock = { now + 3600 }
        guard case .commit(let summary) = try groups[1].process(pending.message) else {
            Issue.record("expected a commit")
            return
        }
        #expect(summary.added.map(\.leafIndex) == [LeafIndex(2)])
        GroupTest.expectInSync(groups)

        // The same holds for a standalone Add proposal received late.
        let (erin, _) = try GroupTestClient("erin").keyPackage(
            lifetime: Lifetime(notBefore: now - 3600, notAfter: now + 600))
        let proposal = try groups[0].proposeAdd(erin)
        guard case .proposal = try groups[1].process(proposal) else {
            Issue.record("expected the proposal to be kept")
            return
        }
    }

    @Test func ownAddStillChecksKeyPackageLifetime() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let now = UnixTime.now
        let (dave, _) = try GroupTestClient("dave").keyPackage(
            lifetime: Lifetime(notBefore: now - 3600, notAfter: now + 600))
        groups[0].clock = { now + 3600 }
        #expect(throws: GroupError.self) { try groups[0].commit(adding: [dave]) }
        #expect(throws: GroupError.self) { try groups[0].proposeAdd(dave) }
        #expect(groups[0].epoch == 1)
        // A downloaded KeyPackage is checked as well.
        #expect(throws: KeyPackageValidationError.expired(notAfter: now + 600, now: now + 3600)) {
            try KeyPackageValidator(now: now + 3600).validate(dave)
        }
    }
}
