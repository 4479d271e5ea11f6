import Foundation

/// Sending standalone proposals (RFC 9420 §12.1; SelfRemove from draft-ietf-mls-extensions).
///
/// A sent proposal is also kept as pending here, so a commit by another member that refers to it
/// can be processed; when it comes back from the delivery service it is reported as `.ownProposal`.
extension MLSGroup {
    /// Sends `proposal` framed per the configuration. Update proposals need a fresh leaf key: use
    /// `proposeUpdate`; SelfRemove is always a PublicMessage: use `proposeSelfRemove`.
    public mutating func propose(_ proposal: Proposal, authenticatedData: Data = Data()) throws(GroupError) -> MLSMessage {
        switch proposal {
        case .update: throw .invalidProposal("use proposeUpdate to create an Update")
        case .selfRemove: return try proposeSelfRemove(authenticatedData: authenticatedData)
        default:
            return try send(
                proposal, wireFormat: configuration.outgoingHandshake.wireFormat,
                authenticatedData: authenticatedData).message
        }
    }

    /// An Add proposal for `keyPackage` (§12.1.1).
    public mutating func proposeAdd(_ keyPackage: KeyPackage, authenticatedData: Data = Data()) throws(GroupError) -> MLSMessage {
        try propose(.add(Add(keyPackage: keyPackage)), authenticatedData: authenticatedData)
    }

    /// A Remove proposal for the member at `leaf` (§12.1.3).
    public mutating func proposeRemove(_ leaf: LeafIndex, authenticatedData: Data = Data()) throws(GroupError) -> MLSMessage {
        try propose(.remove(Remove(removed: leaf)), authenticatedData: authenticatedData)
    }

    /// A GroupContextExtensions proposal replacing all extensions with `extensions` (§12.1.7).
    public mutating func proposeGroupContextExtensions(
        _ extensions: [Extension], authenticatedData: Data = Data()
    ) throws(GroupError) -> MLSMessage {
        try propose(.groupContextExtensions(GroupContextExtensions(extensions: extensions)), authenticatedData: authenticatedData)
    }

    /// A PreSharedKey proposal for an external PSK with a fresh nonce (§12.1.4).
    public mutating func proposeExternalPSK(id: Data, authenticatedData: Data = Data()) throws(GroupError) -> MLSMessage {
        let psk = PreSharedKeyID(kind: .external(pskID: id), nonce: provider.randomBytes(provider.hashLength))
        return try propose(.preSharedKey(PreSharedKey(psk: psk)), authenticatedData: authenticatedData)
    }

    /// A SelfRemove proposal: asks another member to remove this one. Always a PublicMessage with a
    /// membership tag, as MDK sends it (draft-ietf-mls-extensions, MIP-03).
    /// Only one per epoch (draft-ietf-mls-extensions): a second one fails with `.invalidProposal`.
    public mutating func proposeSelfRemove(authenticatedData: Data = Data()) throws(GroupError) -> MLSMessage {
        let own = Sender.member(leafIndex: ownLeafIndex)
        if pendingProposals.contains(where: { $0.sender == own && $0.proposal.type == .selfRemove }) {
            throw .invalidProposal("a SelfRemove was already sent in this epoch")
        }
        return try send(.selfRemove(SelfRemove()), wireFormat: .publicMessage, authenticatedData: authenticatedData).message
    }

    /// An Update proposal replacing this member's leaf with one under a fresh encryption key
    /// (§12.1.2), optionally with new capabilities or leaf extensions. The new private key is kept
    /// until a commit covering the proposal arrives.
    public mutating func proposeUpdate(
        capabilities: Capabilities? = nil, leafExtensions: [Extension]? = nil, authenticatedData: Data = Data()
    ) throws(GroupError) -> MLSMessage {
        guard let current = ownLeafNode else { throw .notAMember }
        let key = provider.generateKeyPair()
        var leaf = current
        leaf.encryptionKey = key.publicKey
        leaf.source = .update
        if let capabilities { leaf.capabilities = capabilities }
        if let leafExtensions { leaf.extensions = leafExtensions }
        do {
            try provider.signLeafNode(&leaf, with: signer, groupID: groupID, leafIndex: ownLeafIndex)
        } catch {
            throw .tree(error)
        }
        var next = self
        let (message, ref) = try next.send(
            .update(Update(leafNode: leaf)), wireFormat: configuration.outgoingHandshake.wireFormat,
            authenticatedData: authenticatedData)
        next.pendingUpdateKeys[ref] = key
        self = next
        return message
    }

    /// Checks, signs and frames a proposal from this member, keeps it pending, and records it as sent.
    mutating func send(
        _ proposal: Proposal, wireFormat: WireFormat, authenticatedData: Data
    ) throws(GroupError) -> (message: MLSMessage, ref: ProposalRef) {
        guard isActive else { throw .notAMember }
        let sender = Sender.member(leafIndex: ownLeafIndex)
        try validateProposal(proposal, sender: sender)
        let authenticated = try sign(
            framedContent(.proposal(proposal), authenticatedData: authenticatedData), wireFormat: wireFormat)
        var next = self
        let message = try next.protect(authenticated)
        let ref = proposalRef(authenticated)
        next.pendingProposals.append(PendingProposal(ref: ref, proposal: proposal, sender: sender))
        next.sentHandshakes.append(SentHandshake(epoch: epoch, digest: digest(message), proposalRef: ref))
        self = next
        return (message, ref)
    }
}

extension MLSGroup {
    /// Forgets the pending proposals of this epoch (and the keys of this member's own Updates), e.g.
    /// when the application will not commit them (MDK's clear_pending_proposals).
    public mutating func discardPendingProposals() {
        pendingProposals = []
        pendingUpdateKeys = [:]
    }
}
