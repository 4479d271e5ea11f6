import Foundation

/// Signing, protecting and opening messages with the current epoch's keys (RFC 9420 §6).
extension MLSGroup {
    /// A FramedContent from this member for the current epoch.
    func framedContent(_ body: FramedContent.Body, authenticatedData: Data) -> FramedContent {
        FramedContent(
            groupID: groupID, epoch: epoch, sender: .member(leafIndex: ownLeafIndex),
            authenticatedData: authenticatedData, body: body)
    }

    /// Signs content for `wireFormat` with this member's key over the current GroupContext (§6.1).
    func sign(_ content: FramedContent, wireFormat: WireFormat) throws(GroupError) -> AuthenticatedContent {
        do {
            return try AuthenticatedContent.sign(
                content, wireFormat: wireFormat, groupContext: groupContext, signer: signer, provider: provider)
        } catch {
            throw GroupError(error, currentEpoch: epoch)
        }
    }

    /// Frames signed content with the current epoch's keys: a PrivateMessage takes the next key of
    /// this member's ratchet (§6.3), a PublicMessage gets its membership tag (§6.2).
    mutating func protect(_ authenticated: AuthenticatedContent) throws(GroupError) -> MLSMessage {
        do {
            switch authenticated.wireFormat {
            case .privateMessage:
                let protection = PrivateMessageProtection(
                    epochSecrets: epochSecrets, groupContext: groupContext, padding: configuration.padding)
                return MLSMessage(.privateMessage(try protection.protect(authenticated, secretTree: &secretTree)))
            default:
                let protection = PublicMessageProtection(epochSecrets: epochSecrets, groupContext: groupContext)
                return MLSMessage(.publicMessage(try protection.protect(authenticated)))
            }
        } catch {
            throw GroupError(error, currentEpoch: epoch)
        }
    }

    /// Checks a message of the current epoch and returns its content with the secret tree as it is
    /// after the message's key was consumed; `self` is not changed.
    func open(_ message: MLSMessage) throws(GroupError) -> (content: AuthenticatedContent, secretTree: SecretTree) {
        switch message.body {
        case .publicMessage(let publicMessage):
            guard configuration.acceptPublicHandshakes else { throw .wireFormatNotAllowed(.publicMessage) }
            // A leaf index beyond the tree never names a member (no aliasing of 2^31 + i to leaf i).
            if case .member(let leaf) = publicMessage.content.sender, !tree.size.contains(leaf) {
                throw .unknownSender(publicMessage.content.sender)
            }
            let protection = PublicMessageProtection(epochSecrets: epochSecrets, groupContext: groupContext)
            do {
                let content = try protection.unprotect(publicMessage) { signatureKey(for: $0) }
                return (content, secretTree)
            } catch {
                throw GroupError(error, currentEpoch: epoch)
            }
        case .privateMessage(let privateMessage):
            // content_type is in the clear: an encrypted handshake is refused before any key is used.
            guard configuration.acceptPrivateHandshakes || privateMessage.contentType == .application else {
                throw .wireFormatNotAllowed(.privateMessage)
            }
            let protection = PrivateMessageProtection(
                epochSecrets: epochSecrets, groupContext: groupContext, padding: configuration.padding)
            var tree = secretTree
            var fromSelf = false
            do {
                let content = try protection.unprotect(privateMessage, secretTree: &tree) { leaf in
                    fromSelf = leaf == ownLeafIndex
                    return self.tree.leafNode(at: leaf)?.signatureKey
                }
                return (content, tree)
            } catch {
                if fromSelf, case .keyAlreadyUsed = error { throw .ownMessage }
                throw GroupError(error, currentEpoch: epoch)
            }
        default:
            throw .unsupportedMessage("wire format \(message.wireFormat) is not a group message")
        }
    }

    /// The key a PublicMessage's sender signs with (§6.1): a member's leaf key, an external sender's
    /// key from the external_senders extension, or the leaf key a new member carries in its message.
    func signatureKey(for content: FramedContent) -> SignaturePublicKey? {
        switch content.sender {
        case .member(let leaf):
            return tree.leafNode(at: leaf)?.signatureKey
        case .external(let index):
            guard let senders = try? groupContext.extensions.payload(ExternalSenders.self),
                  Int(index) < senders.senders.count
            else { return nil }
            return senders.senders[Int(index)].signatureKey
        case .newMemberProposal:
            if case .proposal(.add(let add)) = content.body { return add.keyPackage.leafNode.signatureKey }
            return nil
        case .newMemberCommit:
            if case .commit(let commit) = content.body { return commit.path?.leafNode.signatureKey }
            return nil
        }
    }

    /// Opens a late application message of a retained past epoch with that epoch's keys (§14).
    func openPast(
        _ message: PrivateMessage, at index: Int
    ) throws(GroupError) -> (content: AuthenticatedContent, epoch: PastEpoch) {
        var past = pastEpochs[index]
        let protection = PrivateMessageProtection(
            provider: provider, groupContext: past.groupContext, senderDataSecret: past.senderDataSecret)
        var fromSelf = false
        do {
            let content = try protection.unprotect(message, secretTree: &past.secretTree) { leaf in
                fromSelf = leaf == ownLeafIndex
                return past.members[leaf]?.signatureKey
            }
            return (content, past)
        } catch {
            if fromSelf, case .keyAlreadyUsed = error { throw .ownMessage }
            throw GroupError(error, currentEpoch: epoch)
        }
    }

    /// RefHash of the AuthenticatedContent that carries a proposal (§5.2).
    func proposalRef(_ content: AuthenticatedContent) -> ProposalRef {
        provider.proposalRef(encodedAuthenticatedContent: content.tlsSerialized)
    }

    /// The digest by which this member recognises its own handshake messages when they come back.
    func digest(_ message: MLSMessage) -> Data { provider.hash(message.tlsSerialized) }

    /// Keeps sent-message digests of the current epoch and of the commits of retained epochs.
    mutating func pruneSentHandshakes() {
        let current = epoch
        let oldest = current - min(current, UInt64(configuration.maxPastEpochs) + 1)
        sentHandshakes.removeAll { $0.epoch < oldest || ($0.proposalRef != nil && $0.epoch < current) }
    }
}
