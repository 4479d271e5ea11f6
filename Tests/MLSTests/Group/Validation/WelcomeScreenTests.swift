import Foundation
import Testing
@testable import MLS

/// A joiner's `screen` sees the stated group after the GroupInfo's signature and before the tree's
/// validation, so an application refuses an unwanted inviter without validating its tree.
struct WelcomeScreenTests {
    let provider = CipherSuiteProvider.mls128X25519

    @Test func theScreenRunsBeforeTheTreeIsValidatedAndItsReasonIsThrown() throws {
        let alice = GroupTestClient("alice"), bob = GroupTestClient("bob")
        var aliceGroup = try alice.createGroup()
        let (bobPackage, bobKeys) = try bob.keyPackage()
        let pending = try aliceGroup.commit(adding: [bobPackage])
        let welcome = try #require(pending.welcome)
        let info = try #require(pending.groupInfo)
        // A Welcome whose GroupInfo validation would refuse (a second ratchet_tree extension).
        let ref = provider.keyPackageRef(encodedKeyPackage: bobPackage.tlsSerialized)
        let joiner = try welcome.decryptGroupSecrets(ref: ref, initPrivateKey: bobKeys.initPrivateKey, provider: provider)
            .joinerSecret
        let secrets = EpochSecrets(provider: provider, joinerSecret: joiner, pskSecret: nil, groupContext: info.groupContext)
        let treeExtension = Extension(pending.newGroup.tree.ratchetTreeNodes)
        let doubled = try GroupInfo.signed(
            groupContext: info.groupContext, extensions: [treeExtension, treeExtension],
            confirmationTag: info.confirmationTag, signer: LeafIndex(0), signingKey: alice.signer, provider: provider)
        let forged = try Welcome.make(
            groupInfo: doubled, epochSecrets: secrets, psks: [],
            recipients: [WelcomeRecipient(keyPackage: bobPackage, pathSecret: nil, provider: provider)])

        var screened: (leaves: Int, signer: LeafIndex)?
        #expect {
            try MLSGroup.joinReportingSigner(
                welcome: forged, keyPackage: bobPackage, privateMaterial: bobKeys,
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
            welcome: welcome, keyPackage: bobPackage, privateMaterial: bobKeys, screen: { _, _, _ in nil })
        #expect(joined.groupInfoSigner == LeafIndex(0))
        #expect(joined.group.epoch == pending.newGroup.epoch)
    }
}
