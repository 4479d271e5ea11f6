import Foundation
import Testing
@testable import MLS

/// Bad input to PublicMessage / PrivateMessage unprotection: each case fails with its own error and,
/// for PrivateMessages, leaves the receiver's secret tree able to open the genuine message afterwards.
struct MessageProtectionRejectionTests {
    let provider = CipherSuiteProvider.mls128X25519
    let context: GroupContext
    let keys: [SignaturePrivateKey]
    let encryptionSecret: Data
    let privateProtection: PrivateMessageProtection
    let publicProtection: PublicMessageProtection
    let sender = LeafIndex(1)

    init() {
        context = GroupContext(
            cipherSuite: provider.suite, groupID: GroupID(provider.randomBytes(16)), epoch: 42,
            treeHash: provider.randomBytes(32), confirmedTranscriptHash: provider.randomBytes(32), extensions: [])
        keys = [provider.generateSignatureKey(), provider.generateSignatureKey(), provider.generateSignatureKey()]
        encryptionSecret = provider.randomBytes(32)
        privateProtection = PrivateMessageProtection(
            provider: provider, groupContext: context, senderDataSecret: provider.randomBytes(32))
        publicProtection = PublicMessageProtection(
            provider: provider, groupContext: context, membershipKey: provider.randomBytes(32))
    }

    func tree() throws -> SecretTree {
        SecretTree(provider: provider, encryptionSecret: encryptionSecret, size: try TreeSize(leafCount: 3))
    }

    func lookup(_ leaf: LeafIndex) -> SignaturePublicKey? {
        Int(leaf.rawValue) < keys.count ? keys[Int(leaf.rawValue)].publicKey : nil
    }

    func content(_ body: FramedContent.Body = .application(Data(repeating: 0x61, count: 100)), from leaf: LeafIndex? = nil) -> FramedContent {
        FramedContent(
            groupID: context.groupID, epoch: context.epoch, sender: .member(leafIndex: leaf ?? sender),
            authenticatedData: Data("ad".utf8), body: body)
    }

    /// A message from `sender` and a receiver tree that has not seen it.
    func sealed(signer: SignaturePrivateKey? = nil) throws -> (PrivateMessage, SecretTree) {
        var senderTree = try tree()
        let message = try privateProtection.protect(
            content(), signer: signer ?? keys[Int(sender.rawValue)], secretTree: &senderTree)
        return (message, try tree())
    }

    /// Fails with `expected`, then shows the receiver's tree still opens `genuine`.
    func expectRejected(
        _ bad: PrivateMessage, _ expected: MessageProtectionError, genuine: PrivateMessage, receiver: SecretTree,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var tree = receiver
        #expect(throws: expected, sourceLocation: sourceLocation) {
            try privateProtection.unprotect(bad, secretTree: &tree, signatureKey: lookup)
        }
        let opened = try privateProtection.unprotect(genuine, secretTree: &tree, signatureKey: lookup)
        #expect(opened.content == content(), sourceLocation: sourceLocation)
    }

    // MARK: PrivateMessage

    @Test func tamperedCiphertext() throws {
        let (message, receiver) = try sealed()
        var bad = message
        // Past the sample the sender-data key is derived from, so the sender data still opens.
        bad.ciphertext[bad.ciphertext.count - 1] ^= 0x01
        try expectRejected(bad, .decryptionFailed, genuine: message, receiver: receiver)
        var badSample = message
        badSample.ciphertext[0] ^= 0x01
        try expectRejected(badSample, .senderDataDecryptionFailed, genuine: message, receiver: receiver)
    }

    @Test func tamperedSenderData() throws {
        let (message, receiver) = try sealed()
        var bad = message
        bad.encryptedSenderData[2] ^= 0x10
        try expectRejected(bad, .senderDataDecryptionFailed, genuine: message, receiver: receiver)
    }

    @Test func tamperedAuthenticatedData() throws {
        let (message, receiver) = try sealed()
        var bad = message
        bad.authenticatedData = Data("other".utf8)
        try expectRejected(bad, .decryptionFailed, genuine: message, receiver: receiver)
    }

    @Test func wrongEpochAndGroup() throws {
        let (message, receiver) = try sealed()
        var laterEpoch = message
        laterEpoch.epoch += 1
        try expectRejected(laterEpoch, .wrongEpoch(43), genuine: message, receiver: receiver)
        var otherGroup = message
        otherGroup.groupID = GroupID(Data([1, 2, 3]))
        try expectRejected(otherGroup, .wrongGroup(GroupID(Data([1, 2, 3]))), genuine: message, receiver: receiver)
    }

    @Test func forgedSignature() throws {
        // Leaf 1's ratchet, but signed with leaf 0's key.
        let (forged, receiver) = try sealed(signer: keys[0])
        var tree = receiver
        for _ in 0..<2 {
            #expect(throws: MessageProtectionError.badSignature) {
                try privateProtection.unprotect(forged, secretTree: &tree, signatureKey: lookup)
            }
        }
        // The generation was not consumed: the honest message for it still opens.
        let (genuine, _) = try sealed()
        _ = try privateProtection.unprotect(genuine, secretTree: &tree, signatureKey: lookup)
    }

    @Test func replayIsRejected() throws {
        let (message, receiver) = try sealed()
        var tree = receiver
        _ = try privateProtection.unprotect(message, secretTree: &tree, signatureKey: lookup)
        #expect(throws: MessageProtectionError.keyAlreadyUsed(generation: 0)) {
            try privateProtection.unprotect(message, secretTree: &tree, signatureKey: lookup)
        }
    }

    @Test func unknownSender() throws {
        let (message, receiver) = try sealed()
        var tree = receiver
        #expect(throws: MessageProtectionError.unknownSender(.member(leafIndex: sender))) {
            try privateProtection.unprotect(message, secretTree: &tree, signatureKey: { _ in nil })
        }
        _ = try privateProtection.unprotect(message, secretTree: &tree, signatureKey: lookup)
    }

    @Test func generationOutOfWindow() throws {
        var senderTree = try tree()
        for _ in 0...1_000 { _ = try senderTree.nextKey(for: sender, type: .application) }
        let far = try privateProtection.protect(content(), signer: keys[1], secretTree: &senderTree)
        var receiver = try tree()
        #expect(throws: MessageProtectionError.generationOutOfWindow(generation: 1_001)) {
            try privateProtection.unprotect(far, secretTree: &receiver, signatureKey: lookup)
        }
        #expect(receiver.nextGeneration(for: sender, type: .application) == 0)
    }

    @Test func nonMemberSenderCannotEncrypt() throws {
        var senderTree = try tree()
        let external = FramedContent(
            groupID: context.groupID, epoch: context.epoch, sender: .external(senderIndex: 0), authenticatedData: Data(),
            body: .proposal(.remove(Remove(removed: LeafIndex(0)))))
        #expect(throws: MessageProtectionError.senderNotAllowed(.external(senderIndex: 0), .proposal)) {
            try privateProtection.protect(external, signer: keys[0], secretTree: &senderTree)
        }
        #expect(senderTree.nextGeneration(for: sender, type: .handshake) == 0)
    }

    @Test func commitNeedsConfirmationTag() throws {
        var senderTree = try tree()
        let commit = content(.commit(Commit(proposals: [], path: nil)))
        #expect(throws: MessageProtectionError.confirmationTagMismatch) {
            try privateProtection.protect(commit, signer: keys[1], secretTree: &senderTree)
        }
        #expect(throws: MessageProtectionError.confirmationTagMismatch) {
            try privateProtection.protect(content(), signer: keys[1], confirmationTag: Data([1]), secretTree: &senderTree)
        }
        #expect(senderTree.nextGeneration(for: sender, type: .handshake) == 0)
        #expect(senderTree.nextGeneration(for: sender, type: .application) == 0)
    }

    @Test func nonZeroPaddingIsMalformed() throws {
        // Encrypt by hand with leaf 1's application key at generation 0, padding byte 0x01.
        var keyTree = try tree()
        let key = try keyTree.nextKey(for: sender, type: .application)
        let auth = try AuthenticatedContent.sign(
            content(), wireFormat: .privateMessage, groupContext: context, signer: keys[1], provider: provider)
        let plaintext = PrivateMessageContent(body: auth.content.body, auth: auth.auth).tlsSerialized + Data([0, 1])
        var message = PrivateMessage(
            groupID: context.groupID, epoch: context.epoch, contentType: .application,
            authenticatedData: auth.content.authenticatedData, encryptedSenderData: Data(), ciphertext: Data())
        let senderData = SenderData(leafIndex: sender, generation: 0, reuseGuard: 0x0102_0304)
        message.ciphertext = try provider.seal(
            key: key.key, nonce: try key.nonce(reuseGuard: senderData.reuseGuardBytes),
            aad: message.contentAAD.tlsSerialized, plaintext: plaintext)
        let sdKey = SenderDataKey(
            provider: provider, senderDataSecret: privateProtection.senderDataSecret, ciphertext: message.ciphertext)
        message.encryptedSenderData = try provider.seal(
            key: sdKey.key, nonce: sdKey.nonce, aad: message.senderDataAAD.tlsSerialized, plaintext: senderData.tlsSerialized)

        var receiver = try tree()
        #expect(throws: MessageProtectionError.malformedContent(String(describing: MessageDecodingError.nonZeroPadding(offset: 1)))) {
            try privateProtection.unprotect(message, secretTree: &receiver, signatureKey: lookup)
        }
        #expect(receiver.nextGeneration(for: sender, type: .application) == 0)
    }

    @Test(arguments: [PaddingPolicy.none, .multiple(of: 64), .minimumLength(300)])
    func paddingPolicies(_ policy: PaddingPolicy) throws {
        var protection = privateProtection
        protection.padding = policy
        var senderTree = try tree()
        var receiver = try tree()
        let message = try protection.protect(content(), signer: keys[1], secretTree: &senderTree)
        let plaintextLength = message.ciphertext.count - provider.aeadTagLength
        switch policy {
        case .none: #expect(plaintextLength < 300)
        case .multiple(let block): #expect(plaintextLength % block == 0)
        case .minimumLength(let target): #expect(plaintextLength == target)
        }
        let opened = try protection.unprotect(message, secretTree: &receiver, signatureKey: lookup)
        #expect(opened.content == content())
        #expect(throws: MessageProtectionError.invalidPadding) {
            var bad = protection
            bad.padding = .multiple(of: 0)
            var t = try tree()
            return try bad.protect(content(), signer: keys[1], secretTree: &t)
        }
    }

    @Test func messagesInEitherOrderAndBothRatchets() throws {
        var senderTree = try tree()
        let first = try privateProtection.protect(content(), signer: keys[1], secretTree: &senderTree)
        let second = try privateProtection.protect(content(), signer: keys[1], secretTree: &senderTree)
        let proposal = try privateProtection.protect(
            content(.proposal(.remove(Remove(removed: LeafIndex(2))))), signer: keys[1], secretTree: &senderTree)
        var receiver = try tree()
        for message in [second, proposal, first] {
            _ = try privateProtection.unprotect(message, secretTree: &receiver, signatureKey: lookup)
        }
        #expect(receiver.nextGeneration(for: sender, type: .application) == 2)
        #expect(receiver.nextGeneration(for: sender, type: .handshake) == 1)
    }

    // MARK: PublicMessage

    func publicProposal() throws -> PublicMessage {
        try publicProtection.protect(content(.proposal(.remove(Remove(removed: LeafIndex(2))))), signer: keys[1])
    }

    @Test func wrongMembershipTag() throws {
        var bad = try publicProposal()
        bad.membershipTag?[0] ^= 0x01
        #expect(throws: MessageProtectionError.badMembershipTag) {
            try publicProtection.unprotect(bad, signatureKey: keys[1].publicKey)
        }
        bad.membershipTag = nil
        #expect(throws: MessageProtectionError.badMembershipTag) {
            try publicProtection.unprotect(bad, signatureKey: keys[1].publicKey)
        }
        let otherEpochKey = PublicMessageProtection(provider: provider, groupContext: context, membershipKey: provider.randomBytes(32))
        #expect(throws: MessageProtectionError.badMembershipTag) {
            try otherEpochKey.unprotect(try publicProposal(), signatureKey: keys[1].publicKey)
        }
    }

    @Test func publicForgedSignature() throws {
        let message = try publicProposal()
        #expect(throws: MessageProtectionError.badSignature) {
            try publicProtection.unprotect(message, signatureKey: keys[0].publicKey)
        }
        var altered = message
        altered.content.authenticatedData = Data("changed".utf8)
        // The membership tag covers the content too, so it fails first.
        #expect(throws: MessageProtectionError.badMembershipTag) {
            try publicProtection.unprotect(altered, signatureKey: keys[1].publicKey)
        }
        #expect(throws: MessageProtectionError.unknownSender(.member(leafIndex: sender))) {
            try publicProtection.unprotect(message, signatureKey: { _ in nil })
        }
    }

    @Test func publicWrongEpochAndGroup() throws {
        var message = try publicProposal()
        message.content.epoch = 41
        #expect(throws: MessageProtectionError.wrongEpoch(41)) {
            try publicProtection.unprotect(message, signatureKey: keys[1].publicKey)
        }
        message.content.epoch = context.epoch
        message.content.groupID = GroupID(Data([9]))
        #expect(throws: MessageProtectionError.wrongGroup(GroupID(Data([9])))) {
            try publicProtection.unprotect(message, signatureKey: keys[1].publicKey)
        }
    }

    /// External senders need no membership tag and sign without the GroupContext (§6.1, §12.1.8).
    @Test func externalSenderProposals() throws {
        let externalKey = provider.generateSignatureKey()
        let remove = FramedContent(
            groupID: context.groupID, epoch: context.epoch, sender: .external(senderIndex: 0), authenticatedData: Data(),
            body: .proposal(.remove(Remove(removed: LeafIndex(0)))))
        let message = try publicProtection.protect(remove, signer: externalKey)
        #expect(message.membershipTag == nil)
        let opened = try publicProtection.unprotect(
            try PublicMessage(tlsSerialized: message.tlsSerialized), signatureKey: externalKey.publicKey)
        #expect(opened.content == remove)

        var externalInit = remove
        externalInit.body = .proposal(.externalInit(ExternalInit(kemOutput: Data(repeating: 1, count: 32))))
        #expect(throws: MessageProtectionError.senderNotAllowed(.external(senderIndex: 0), .proposal)) {
            try publicProtection.protect(externalInit, signer: externalKey)
        }
        // A new member may only propose its own Add.
        var newMemberRemove = remove
        newMemberRemove.sender = .newMemberProposal
        #expect(throws: MessageProtectionError.senderNotAllowed(.newMemberProposal, .proposal)) {
            try publicProtection.protect(newMemberRemove, signer: externalKey)
        }
        // The wrong key for the external sender.
        #expect(throws: MessageProtectionError.badSignature) {
            try publicProtection.unprotect(message, signatureKey: keys[0].publicKey)
        }
    }
}
