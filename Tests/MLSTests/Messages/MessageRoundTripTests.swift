import Foundation
import Testing
@testable import MLS

/// Hand-built structs survive encode → decode unchanged, including unknown code points.
struct MessageRoundTripTests {
    func roundTrip<T: TLSCodable & Equatable>(_ value: T) throws {
        let decoded = try T(tlsSerialized: value.tlsSerialized)
        #expect(decoded == value)
        #expect(decoded.tlsSerialized == value.tlsSerialized)
    }

    @Test func samplesRoundTrip() throws {
        try roundTrip(MessageSamples.keyPackage())
        try roundTrip(MessageSamples.commit())
        try roundTrip(MessageSamples.commit(withPath: false))
        try roundTrip(MessageSamples.publicCommitMessage())
        try roundTrip(MLSMessage(.privateMessage(MessageSamples.privateMessage())))
        try roundTrip(MLSMessage(.groupInfo(MessageSamples.groupInfo())))
        try roundTrip(MLSMessage(.welcome(MessageSamples.welcome())))
        try roundTrip(MLSMessage(.keyPackage(MessageSamples.keyPackage())))
        try roundTrip(MessageSamples.groupSecrets())
        try roundTrip(GroupSecrets(joinerSecret: Data([1]), pathSecret: nil, psks: []))
        try roundTrip(SenderData(leafIndex: LeafIndex(5), generation: 1, reuseGuard: 0x01020304))
        try roundTrip(SenderDataAAD(groupID: MessageSamples.groupID, epoch: 1, contentType: .commit))
        try roundTrip(PrivateContentAAD(groupID: MessageSamples.groupID, epoch: 1, contentType: .proposal, authenticatedData: Data([9])))
    }

    @Test func senderDataReuseGuardIsFourBigEndianBytes() throws {
        let data = SenderData(leafIndex: LeafIndex(1), generation: 2, reuseGuard: 0xa1b2c3d4)
        #expect(data.tlsSerialized == Data([0, 0, 0, 1, 0, 0, 0, 2, 0xa1, 0xb2, 0xc3, 0xd4]))
        #expect(data.reuseGuardBytes == Data([0xa1, 0xb2, 0xc3, 0xd4]))
    }

    @Test(arguments: [
        Sender.member(leafIndex: LeafIndex(4)), .external(senderIndex: 2), .newMemberProposal, .newMemberCommit,
    ])
    func senderTypesRoundTrip(sender: Sender) throws {
        try roundTrip(sender)
        let hasTag = if case .member = sender { true } else { false }
        let message = PublicMessage(
            content: MessageSamples.framedContent(sender: sender, body: .proposal(.selfRemove(SelfRemove()))),
            auth: FramedContentAuthData(signature: Data([1, 2, 3]), confirmationTag: nil),
            membershipTag: hasTag ? Data(repeating: 0x3b, count: 32) : nil)
        let decoded = try PublicMessage(tlsSerialized: message.tlsSerialized)
        #expect(decoded == message)
        #expect((decoded.membershipTag != nil) == hasTag)
    }

    @Test func confirmationTagOnlyForCommits() throws {
        let auth = FramedContentAuthData(signature: Data([1]), confirmationTag: Data([2]))
        var commitWriter = TLSWriter()
        auth.encode(to: &commitWriter, contentType: .commit)
        #expect(commitWriter.bytes == [1, 1, 1, 2])
        var appWriter = TLSWriter()
        auth.encode(to: &appWriter, contentType: .application)
        #expect(appWriter.bytes == [1, 1])
        var reader = TLSReader(appWriter.bytes)
        #expect(try FramedContentAuthData(from: &reader, contentType: .application).confirmationTag == nil)
    }

    @Test func proposalsRoundTripIncludingSelfRemove() throws {
        let proposals: [Proposal] = [
            .add(Add(keyPackage: MessageSamples.keyPackage())),
            .update(Update(leafNode: MessageSamples.leafNode(source: .update))),
            .remove(Remove(removed: LeafIndex(9))),
            .preSharedKey(PreSharedKey(psk: PreSharedKeyID(kind: .resumption(usage: .branch, groupID: MessageSamples.groupID, epoch: 3), nonce: Data([7])))),
            .reInit(ReInit(groupID: MessageSamples.groupID, version: .mls10, cipherSuite: .mls128X25519AES128GCMSHA256Ed25519, extensions: [])),
            .externalInit(ExternalInit(kemOutput: Data(repeating: 0xee, count: 32))),
            .groupContextExtensions(GroupContextExtensions(extensions: [Extension(type: .marmotGroupData, data: Data([1, 2]))])),
            .selfRemove(SelfRemove()),
        ]
        for proposal in proposals { try roundTrip(proposal) }
        #expect(Proposal.selfRemove(SelfRemove()).tlsSerialized == Data([0x00, 0x0a]))
    }

    @Test func unknownProposalEncodesVerbatimButDoesNotDecode() {
        let custom = Proposal.unknown(type: ProposalType(rawValue: 0xf001), body: Data([0xab, 0xcd]))
        #expect(custom.tlsSerialized == Data([0xf0, 0x01, 0xab, 0xcd]))
        #expect(throws: MessageDecodingError.unknownProposalType(0xf001)) { _ = try Proposal(tlsSerialized: custom.tlsSerialized) }
    }

    @Test func credentialsRoundTripIncludingUnknownTypes() throws {
        let x509 = Credential.x509(certificates: [Certificate(derBytes: Data([0x30, 0x01])), Certificate(derBytes: Data([0x30, 0x02]))])
        try roundTrip(x509)
        #expect(x509.tlsSerialized == Data([0x00, 0x02, 0x06, 0x02, 0x30, 0x01, 0x02, 0x30, 0x02]))
        let unknown = Credential.unknown(type: CredentialType(rawValue: 0xbaba), content: Data([1, 2, 3]))
        try roundTrip(unknown)
        #expect(unknown.tlsSerialized == Data([0xba, 0xba, 0x03, 1, 2, 3]))
        try roundTrip(Credential.basic(identity: Data()))
    }

    @Test func leafNodeSourcesRoundTrip() throws {
        for source in [LeafNodeSource.keyPackage(lifetime: Lifetime(notBefore: 0, notAfter: .max)), .update, .commit(parentHash: Data([1]))] {
            try roundTrip(MessageSamples.leafNode(source: source))
        }
    }

    @Test func extensionViewsRoundTripAndCheckType() throws {
        let senders = ExternalSenders(senders: [ExternalSender(signatureKey: SignaturePublicKey(Data([1])), credential: .basic(identity: Data([2])))])
        let extensions = [Extension(senders), Extension(LastResortExtension()), Extension(type: ExtensionType(rawValue: 0x3a3a), data: Data([9]))]
        #expect(try extensions.payload(ExternalSenders.self) == senders)
        #expect(try extensions.payload(LastResortExtension.self) == LastResortExtension())
        #expect(try extensions.payload(ExternalPub.self) == nil)
        #expect(Extension(LastResortExtension()).data.isEmpty)
        #expect(throws: MessageDecodingError.extensionTypeMismatch(expected: 0x0004, actual: 0x0005)) {
            _ = try extensions[0].payload(as: ExternalPub.self)
        }
        let padded = Extension(type: .lastResort, data: Data([0]))
        #expect(throws: TLSDecodingError.trailingBytes(1)) { _ = try padded.payload(as: LastResortExtension.self) }
    }

    @Test func leafNodeTBSBindsGroupOnlyForUpdateAndCommit() throws {
        let kpLeaf = MessageSamples.leafNode()
        let kpTBS = try LeafNodeTBS(leafNode: kpLeaf)
        #expect(kpTBS.tlsSerialized == kpLeaf.tlsSerialized.dropLast(66))
        #expect(throws: MessageEncodingError.leafNodeContextMismatch) {
            _ = try LeafNodeTBS(leafNode: kpLeaf, groupID: MessageSamples.groupID, leafIndex: LeafIndex(0))
        }

        let updateLeaf = MessageSamples.leafNode(source: .update)
        #expect(throws: MessageEncodingError.leafNodeContextMismatch) { _ = try LeafNodeTBS(leafNode: updateLeaf) }
        #expect(throws: MessageEncodingError.leafNodeContextMismatch) {
            _ = try LeafNodeTBS(leafNode: updateLeaf, groupID: MessageSamples.groupID)
        }
        let updateTBS = try LeafNodeTBS(leafNode: updateLeaf, groupID: MessageSamples.groupID, leafIndex: LeafIndex(2))
        #expect(updateTBS.tlsSerialized == updateLeaf.tlsSerialized.dropLast(66) + Data([3, 0x67, 0x72, 0x70, 0, 0, 0, 2]))
    }

    @Test func framedContentTBSCarriesContextForMembersOnly() throws {
        let memberContent = MessageSamples.framedContent(body: .application(Data([1])))
        let context = MessageSamples.groupContext()
        let tbs = try FramedContentTBS(wireFormat: .privateMessage, content: memberContent, context: context)
        #expect(tbs.tlsSerialized == Data([0, 1, 0, 2]) + memberContent.tlsSerialized + context.tlsSerialized)
        #expect(throws: MessageEncodingError.framedContentContextMismatch) {
            _ = try FramedContentTBS(wireFormat: .publicMessage, content: memberContent, context: nil)
        }
        let external = MessageSamples.framedContent(sender: .external(senderIndex: 0), body: .proposal(.remove(Remove(removed: LeafIndex(1)))))
        #expect(throws: MessageEncodingError.framedContentContextMismatch) {
            _ = try FramedContentTBS(wireFormat: .publicMessage, content: external, context: context)
        }
        let externalTBS = try FramedContentTBS(wireFormat: .publicMessage, content: external, context: nil)
        #expect(externalTBS.tlsSerialized == Data([0, 1, 0, 1]) + external.tlsSerialized)
    }

    @Test func keyPackageAndGroupInfoTBSOmitOnlyTheSignature() {
        let kp = MessageSamples.keyPackage()
        #expect(kp.tbs.tlsSerialized == kp.tlsSerialized.dropLast(66))
        let info = MessageSamples.groupInfo()
        #expect(info.tbs.tlsSerialized == info.tlsSerialized.dropLast(66))
    }

    @Test(arguments: [ContentType.application, .proposal, .commit])
    func privateMessageContentAcceptsZeroPadding(contentType: ContentType) throws {
        let body: FramedContent.Body = switch contentType {
        case .application: .application(Data("hi".utf8))
        case .proposal: .proposal(.remove(Remove(removed: LeafIndex(1))))
        case .commit: .commit(MessageSamples.commit(withPath: false))
        }
        let tag: Data? = contentType == .commit ? Data(repeating: 0xc7, count: 32) : nil
        for padding in [0, 1, 31, 200] {
            let content = PrivateMessageContent(body: body, auth: FramedContentAuthData(signature: Data([5]), confirmationTag: tag), paddingLength: padding)
            let plaintext = content.tlsSerialized
            let decoded = try PrivateMessageContent(plaintext: plaintext, contentType: contentType)
            #expect(decoded == content)
            #expect(decoded.paddingLength == padding)
            #expect(decoded.tlsSerialized == plaintext)
        }
    }
}
