import Foundation

/// Turns AuthenticatedContent into PublicMessages and back for one epoch (RFC 9420 §6.2).
///
/// Members add membership_tag = MAC(membership_key, AuthenticatedContentTBM), proving membership in
/// the epoch on top of the signature. Only handshake messages may be public; application data must
/// be a PrivateMessage (§6).
public struct PublicMessageProtection: Sendable, CustomStringConvertible {
    public let provider: CipherSuiteProvider
    /// The current epoch's GroupContext, signed over by member and new_member_commit senders.
    public let groupContext: GroupContext
    /// membership_key of the current epoch (§8).
    let membershipKey: Data

    public init(provider: CipherSuiteProvider, groupContext: GroupContext, membershipKey: Data) {
        self.provider = provider
        self.groupContext = groupContext
        self.membershipKey = membershipKey
    }

    /// Protection for the epoch whose secrets and context are given.
    public init(epochSecrets: EpochSecrets, groupContext: GroupContext) {
        self.init(provider: epochSecrets.provider, groupContext: groupContext, membershipKey: epochSecrets.membershipKey)
    }

    public var description: String { "PublicMessageProtection(epoch \(groupContext.epoch), redacted)" }

    // MARK: Protect

    /// Signs `content` as a PublicMessage and adds the membership tag for a member sender. Commits
    /// need their confirmation tag here; when it is not known yet, use `AuthenticatedContent.sign`,
    /// set the tag, then `protect(_:)`.
    public func protect(
        _ content: FramedContent, signer: SignaturePrivateKey, confirmationTag: Data? = nil
    ) throws(MessageProtectionError) -> PublicMessage {
        let authenticated = try AuthenticatedContent.sign(
            content, wireFormat: .publicMessage, groupContext: groupContext, signer: signer,
            confirmationTag: confirmationTag, provider: provider)
        return try protect(authenticated)
    }

    /// Frames signed content (wire format mls_public_message) as a PublicMessage.
    public func protect(_ authenticated: AuthenticatedContent) throws(MessageProtectionError) -> PublicMessage {
        let content = authenticated.content
        guard authenticated.wireFormat == .publicMessage else { throw .senderNotAllowed(content.sender, content.contentType) }
        try AuthenticatedContent.checkSender(content, wireFormat: .publicMessage)
        try AuthenticatedContent.checkEpoch(content.groupID, content.epoch, against: groupContext)
        try AuthenticatedContent.checkConfirmationTag(authenticated.auth, content.contentType)
        var message = PublicMessage(content: content, auth: authenticated.auth, membershipTag: nil)
        if PublicMessage.hasMembershipTag(content.sender) {
            message.membershipTag = provider.mac(key: membershipKey, data: try tbm(message).tlsSerialized)
        }
        return message
    }

    // MARK: Unprotect

    /// Checks a PublicMessage whose sender's signature key is already known.
    public func unprotect(
        _ message: PublicMessage, signatureKey: SignaturePublicKey
    ) throws(MessageProtectionError) -> AuthenticatedContent {
        try unprotect(message) { _ in signatureKey }
    }

    /// Checks a PublicMessage: group and epoch, sender rules, the membership tag (member senders),
    /// then the signature under the key `signatureKey` finds for the content's sender: a member's
    /// leaf key, an external sender's key, or the leaf key carried by a new member's Commit path or
    /// Add proposal (§6.1). The confirmation tag of a commit is checked by the caller once it has
    /// the new epoch's confirmation key (§8.2).
    public func unprotect(
        _ message: PublicMessage, signatureKey: (FramedContent) -> SignaturePublicKey?
    ) throws(MessageProtectionError) -> AuthenticatedContent {
        let content = message.content
        try AuthenticatedContent.checkEpoch(content.groupID, content.epoch, against: groupContext)
        try AuthenticatedContent.checkSender(content, wireFormat: .publicMessage)
        try AuthenticatedContent.checkConfirmationTag(message.auth, content.contentType)
        if PublicMessage.hasMembershipTag(content.sender) {
            guard let tag = message.membershipTag,
                  provider.verifyMAC(key: membershipKey, data: try tbm(message).tlsSerialized, tag: tag)
            else { throw .badMembershipTag }
        }
        guard let key = signatureKey(content) else { throw .unknownSender(content.sender) }
        let authenticated = message.authenticatedContent
        try authenticated.verifySignature(key, groupContext: groupContext, provider: provider)
        return authenticated
    }

    /// AuthenticatedContentTBM of a message (§6.2).
    private func tbm(_ message: PublicMessage) throws(MessageProtectionError) -> AuthenticatedContentTBM {
        let tbs = try AuthenticatedContent.framedContentTBS(
            message.content, wireFormat: .publicMessage, groupContext: groupContext)
        return AuthenticatedContentTBM(contentTBS: tbs, auth: message.auth)
    }
}
