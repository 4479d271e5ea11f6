import Foundation

/// Signing and verifying FramedContent, shared by both wire formats (RFC 9420 §6.1).
extension AuthenticatedContent {
    static let signatureLabel = "FramedContentTBS"

    /// Signs `content` for `wireFormat` with SignWithLabel(., "FramedContentTBS", FramedContentTBS).
    ///
    /// The wire format is part of what is signed, so it is chosen here. `groupContext` is the current
    /// epoch's; it is covered for member and new_member_commit senders and ignored for the others. A
    /// commit's confirmation tag depends on this signature through the confirmed transcript hash
    /// (§8.2), so it may be nil here and set on `auth` before the message is protected.
    public static func sign(
        _ content: FramedContent, wireFormat: WireFormat, groupContext: GroupContext?, signer: SignaturePrivateKey,
        confirmationTag: Data? = nil, provider: CipherSuiteProvider
    ) throws(MessageProtectionError) -> AuthenticatedContent {
        try checkSender(content, wireFormat: wireFormat)
        if confirmationTag != nil, content.contentType != .commit { throw .confirmationTagMismatch }
        let tbs = try framedContentTBS(content, wireFormat: wireFormat, groupContext: groupContext)
        let signature: Data
        do {
            signature = try provider.signWithLabel(signer, label: signatureLabel, content: tbs.tlsSerialized)
        } catch {
            throw .crypto(error)
        }
        return AuthenticatedContent(
            wireFormat: wireFormat, content: content,
            auth: FramedContentAuthData(signature: signature, confirmationTag: confirmationTag))
    }

    /// Checks the signature under the sender's key (§6.1); `.badSignature` when it does not verify.
    public func verifySignature(
        _ key: SignaturePublicKey, groupContext: GroupContext?, provider: CipherSuiteProvider
    ) throws(MessageProtectionError) {
        let tbs = try Self.framedContentTBS(content, wireFormat: wireFormat, groupContext: groupContext)
        guard provider.verifyWithLabel(
            key, label: Self.signatureLabel, content: tbs.tlsSerialized, signature: auth.signature)
        else { throw .badSignature }
    }

    /// FramedContentTBS with the context only for senders that sign it; a given context must be the
    /// one the content claims (group and epoch).
    static func framedContentTBS(
        _ content: FramedContent, wireFormat: WireFormat, groupContext: GroupContext?
    ) throws(MessageProtectionError) -> FramedContentTBS {
        let context: GroupContext?
        if FramedContentTBS.includesContext(content.sender) {
            guard let groupContext else { throw .groupContextRequired }
            try checkEpoch(content.groupID, content.epoch, against: groupContext)
            context = groupContext
        } else {
            context = nil
        }
        do {
            return try FramedContentTBS(wireFormat: wireFormat, content: content, context: context)
        } catch {
            throw .groupContextRequired
        }
    }

    /// The group and epoch a message names must be the context's (§6, §14).
    static func checkEpoch(_ groupID: GroupID, _ epoch: UInt64, against context: GroupContext) throws(MessageProtectionError) {
        guard groupID == context.groupID else { throw .wrongGroup(groupID) }
        guard epoch == context.epoch else { throw .wrongEpoch(epoch) }
    }

    /// Whether the sender may send this content in this wire format: PrivateMessages come from
    /// members only (§6.3.2); application data is never public (§6); external senders propose
    /// only the types of §12.1.8, new members only Add proposals or their own Commit (§6.1).
    static func checkSender(_ content: FramedContent, wireFormat: WireFormat) throws(MessageProtectionError) {
        let sender = content.sender
        let type = content.contentType
        switch wireFormat {
        case .privateMessage:
            guard case .member = sender else { throw .senderNotAllowed(sender, type) }
        case .publicMessage:
            if type == .application { throw .applicationMessageMustBeEncrypted }
            switch (sender, content.body) {
            case (.member, _): break
            case (.external, .proposal(let proposal)):
                guard externalProposalTypes.contains(proposal.type) else { throw .senderNotAllowed(sender, type) }
            case (.newMemberProposal, .proposal(.add)): break
            case (.newMemberCommit, .commit): break
            default: throw .senderNotAllowed(sender, type)
            }
        default:
            throw .senderNotAllowed(sender, type)
        }
    }

    /// Proposal types an external sender may send (§12.1.8, the "Ext" column of §17.4).
    static let externalProposalTypes: Set<ProposalType> = [.add, .remove, .psk, .reinit, .groupContextExtensions]

    /// A confirmation tag is carried exactly by commits (§6.1).
    static func checkConfirmationTag(_ auth: FramedContentAuthData, _ type: ContentType) throws(MessageProtectionError) {
        guard (auth.confirmationTag != nil) == (type == .commit) else { throw .confirmationTagMismatch }
    }
}
