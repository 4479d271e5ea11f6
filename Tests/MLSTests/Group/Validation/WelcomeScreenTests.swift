import Foundation
import Testing
@testable import MLS

/// A joiner's `screen` sees the stated group after the GroupInfo's signature and before the tree's
/// validation, so an application refuses an unwanted inviter without validating its tree.
struct WelcomeScreenTests {
    @Test func theScreenRunsBeforeTheTreeIsValidatedAndItsReasonIsThrown() throws {
        // A Welcome whose GroupInfo validation would refuse (a second ratchet_tree extension).
        let made = try Fixture.doubledTreeWelcome()
        var screened: (leaves: Int, signer: LeafIndex)?
        #expect {
            try MLSGroup.joinReportingSigner(
                welcome: made.forged, keyPackage: made.bobPackage, privateMaterial: made.bobKeys,
                screen: { _, tree, signer in
                    screened = (tree.leaves.count, signer)
                    return "the inviter is not someone we take invitations from"
                })
        } throws: { error in
            guard case .invalidWelcome(let why) = error as? GroupError else { return false }
            // The screen's reason, not the validation's ("appears twice"): validation never ran.
            return why == "refused before validation: the inviter is not someone we take invitations from"
        }
        #expect(screened?.leaves == 2 && screened?.signer == LeafIndex(0))

        // A screen that lets the genuine Welcome through changes nothing.
        let joined = try MLSGroup.joinReportingSigner(
            welcome: made.genuine, keyPackage: made.bobPackage, privateMaterial: made.bobKeys, screen: { _, _, _ in nil })
        #expect(joined.groupInfoSigner == LeafIndex(0))
        #expect(joined.group.epoch == made.epoch)
    }
}
