import Foundation

/// Turns AuthenticatedContent into PrivateMessages and back for one epoch (RFC 9420 §6.3).
///
/// The content is sealed with a single-use key of the sender's ratchet (application or handshake by
/// content type) with a random reuse guard XORed into the nonce (§6.3.1); the sender's leaf and
/// generation travel in SenderData sealed under keys derived from sender_data_secret and a sample
/// of that ciphertext (§6.3.2). The secret tree is passed `inout` and written back only on success,
/// so a message that fails any check consumes no key.
public struct PrivateMessageProtection: Sendable, CustomStringConvertible {
    public let provider: CipherSuiteProvider
    /// The current epoch's GroupContext, signed over by every (member) sender.
    public let groupContext: GroupContext
    /// sender_data_secret of the current epoch (§8).
    let senderDataSecret: Data
    /// How outgoing contents are padded.
    public var padding: PaddingPolicy

    public init(
        provider: CipherSuiteProvider, groupContext: GroupContext, senderDataSecret: Data, padding: PaddingPolicy = .none
    ) {
        self.provider = provider
        self.groupContext = groupContext
        self.senderDataSecret = senderDataSecret
        self.padding = padding
    }

    /// Protection for the epoch whose secrets and context are given.
    public init(epochSecrets: EpochSecrets, groupContext: GroupContext, padding: PaddingPolicy = .none) {
        self.init(
            provider: epochSecrets.provider, groupContext: groupContext,
            senderDataSecret: epochSecrets.senderDataSecret, padding: padding)
    }

    public var description: String { "PrivateMessageProtection(epoch \(groupContext.epoch), redacted)" }

    /// The ratchet a content type draws keys from (§9).
    static func ratchet(for type: ContentType) -> RatchetType {
        type == .application ? .application : .handshake
    }

    // MARK: Protect

    /// Signs and encrypts `content` (sent by a member) with the next key of its ratchet. Commits need
    /// their confirmation tag here; when it is not known yet, use `AuthenticatedContent.sign` with
    /// wire format mls_private_message, set the tag, then `protect(_:secretTree:)`.
    public func protect(
        _ content: FramedContent, signer: SignaturePrivateKey, confirmationTag: Data? = nil,
        secretTree: inout SecretTree
    ) throws(MessageProtectionError) -> PrivateMessage {
        let authenticated = try AuthenticatedContent.sign(
            content, wireFormat: .privateMessage, groupContext: groupContext, signer: signer,
            confirmationTag: confirmationTag, provider: provider)
        return try protect(authenticated, secretTree: &secretTree)
    }

    /// Encrypts signed content (wire format mls_private_message), consuming the next generation of
    /// the sender's ratchet in `secretTree`.
    public func protect(
        _ authenticated: AuthenticatedContent, secretTree: inout SecretTree
    ) throws(MessageProtectionError) -> PrivateMessage {
        let content = authenticated.content
        guard authenticated.wireFormat == .privateMessage, case .member(let leaf) = content.sender else {
            throw .senderNotAllowed(content.sender, content.contentType)
        }
        try AuthenticatedContent.checkEpoch(content.groupID, content.epoch, against: groupContext)
        try AuthenticatedContent.checkConfirmationTag(authenticated.auth, content.contentType)

        var plaintext = PrivateMessageContent(body: content.body, auth: authenticated.auth)
        plaintext.paddingLength = try padding.paddingLength(forContentLength: plaintext.tlsSerialized.count)

        var tree = secretTree
        let key: MessageKey
        do {
            key = try tree.nextKey(for: leaf, type: Self.ratchet(for: content.contentType))
        } catch {
            throw MessageProtectionError(error, leaf: leaf)
        }
        let senderData = SenderData(leafIndex: leaf, generation: key.generation, reuseGuard: UInt32.random(in: .min ... .max))
        var message = PrivateMessage(
            groupID: content.groupID, epoch: content.epoch, contentType: content.contentType,
            authenticatedData: content.authenticatedData, encryptedSenderData: Data(), ciphertext: Data())
        do {
            message.ciphertext = try provider.seal(
                key: key.key, nonce: key.nonce(reuseGuard: senderData.reuseGuardBytes),
                aad: message.contentAAD.tlsSerialized, plaintext: plaintext.tlsSerialized)
            let senderDataKey = SenderDataKey(
                provider: provider, senderDataSecret: senderDataSecret, ciphertext: message.ciphertext)
            message.encryptedSenderData = try provider.seal(
                key: senderDataKey.key, nonce: senderDataKey.nonce, aad: message.senderDataAAD.tlsSerialized,
                plaintext: senderData.tlsSerialized)
        } catch {
            throw .crypto(error)
        }
        secretTree = tree
        return message
    }

    // MARK: Unprotect

    /// Decrypts and verifies a PrivateMessage: group and epoch, sender data, the sender's leaf (which
    /// `signatureKey` must know, i.e. a non-blank leaf, §6.3.2), the content under that leaf's key for
    /// the generation, then the signature. On success the used key is gone from `secretTree`; on any
    /// failure `secretTree` is untouched. A commit's confirmation tag is checked by the caller once it
    /// has the new epoch's confirmation key (§8.2).
    public func unprotect(
        _ message: PrivateMessage, secretTree: inout SecretTree, signatureKey: (LeafIndex) -> SignaturePublicKey?
    ) throws(MessageProtectionError) -> AuthenticatedContent {
        try AuthenticatedContent.checkEpoch(message.groupID, message.epoch, against: groupContext)

        let senderDataKey = SenderDataKey(provider: provider, senderDataSecret: senderDataSecret, ciphertext: message.ciphertext)
        let senderDataBytes: Data
        do {
            senderDataBytes = try provider.open(
                key: senderDataKey.key, nonce: senderDataKey.nonce, aad: message.senderDataAAD.tlsSerialized,
                ciphertext: message.encryptedSenderData)
        } catch {
            throw .senderDataDecryptionFailed
        }
        guard let senderData = try? SenderData(tlsSerialized: senderDataBytes) else { throw .malformedSenderData }
        let leaf = senderData.leafIndex
        let sender = Sender.member(leafIndex: leaf)
        guard let publicKey = signatureKey(leaf) else { throw .unknownSender(sender) }

        var tree = secretTree
        let key: MessageKey
        do {
            key = try tree.key(for: leaf, type: Self.ratchet(for: message.contentType), generation: senderData.generation)
        } catch {
            throw MessageProtectionError(error, leaf: leaf)
        }
        let plaintext: Data
        do {
            plaintext = try provider.open(
                key: key.key, nonce: key.nonce(reuseGuard: senderData.reuseGuardBytes),
                aad: message.contentAAD.tlsSerialized, ciphertext: message.ciphertext)
        } catch {
            throw .decryptionFailed
        }
        let decoded: PrivateMessageContent
        do {
            decoded = try PrivateMessageContent(plaintext: plaintext, contentType: message.contentType)
        } catch {
            throw .malformedContent(String(describing: error))
        }
        let content = FramedContent(
            groupID: message.groupID, epoch: message.epoch, sender: sender,
            authenticatedData: message.authenticatedData, body: decoded.body)
        let authenticated = AuthenticatedContent(wireFormat: .privateMessage, content: content, auth: decoded.auth)
        try authenticated.verifySignature(publicKey, groupContext: groupContext, provider: provider)
        secretTree = tree
        return authenticated
    }
}
