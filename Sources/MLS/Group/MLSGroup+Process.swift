import Foundation

/// Processing incoming group messages (RFC 9420 §6, §12.1, §12.4.2, §14).
extension MLSGroup {
    /// Processes `message` and also returns the group after it; `self` is not changed.
    ///
    /// Application messages of the current epoch, or of a retained past epoch, are decrypted and
    /// their key deleted. Proposals are checked and kept as pending under their reference. Commits
    /// from other members are processed fully (§12.4.2) and lead to the next epoch. This member's
    /// own handshake messages are recognised and reported without change. Handshake messages of
    /// another epoch fail with `.wrongEpoch`.
    public func processing(
        _ message: MLSMessage, externalPSKs: [Data: Data] = [:]
    ) throws(GroupError) -> (ProcessedMessage, MLSGroup) {
        let (messageGroup, messageEpoch, contentType) = try Self.header(of: message)
        guard messageGroup == groupID else { throw .wrongGroupID(messageGroup) }

        if contentType != .application, let sent = sentHandshakes.first(where: { $0.digest == digest(message) }) {
            if let ref = sent.proposalRef { return (.ownProposal(ref), self) }
            return (.ownCommit(epoch: sent.epoch &+ 1), self)
        }

        // A removed member keeps its last epoch only as a retained one (its current secrets are gone).
        guard messageEpoch == epoch, isActive else {
            if case .privateMessage(let privateMessage) = message.body, contentType == .application,
               let index = pastEpochs.lastIndex(where: { $0.groupContext.epoch == messageEpoch }) {
                return try processPastApplication(privateMessage, at: index)
            }
            if messageEpoch == epoch { throw .notAMember }
            throw .wrongEpoch(expected: epoch, got: messageEpoch)
        }

        let (content, newSecretTree) = try open(message)
        var next = self
        next.secretTree = newSecretTree
        switch content.content.body {
        case .application(let data):
            guard case .member(let leaf) = content.content.sender, let node = tree.leafNode(at: leaf) else {
                throw .unknownSender(content.content.sender)
            }
            let result = ApplicationMessage(
                data: data, sender: leaf, credential: node.credential,
                authenticatedData: content.content.authenticatedData, epoch: epoch)
            return (.application(result), next)
        case .proposal(let proposal):
            guard isActive else { throw .notAMember }
            if content.content.sender == .member(leafIndex: ownLeafIndex) { throw .ownMessage }
            let pending = try next.receive(proposal, in: content)
            return (.proposal(pending), next)
        case .commit(let commit):
            guard isActive else { throw .notAMember }
            return try next.processCommit(commit, in: content, externalPSKs: externalPSKs)
        }
    }

    /// Processes `message` and adopts the resulting state; on any error the group is unchanged.
    public mutating func process(_ message: MLSMessage, externalPSKs: [Data: Data] = [:]) throws(GroupError) -> ProcessedMessage {
        let (result, next) = try processing(message, externalPSKs: externalPSKs)
        self = next
        return result
    }

    /// Decodes and processes serialized MLSMessage bytes.
    public mutating func process(bytes: Data, externalPSKs: [Data: Data] = [:]) throws(GroupError) -> ProcessedMessage {
        let message: MLSMessage
        do {
            message = try MLSMessage(tlsSerialized: bytes)
        } catch {
            throw .malformedMessage("\(error)")
        }
        return try process(message, externalPSKs: externalPSKs)
    }

    /// Group, epoch and content type of a PublicMessage or PrivateMessage.
    public static func header(of message: MLSMessage) throws(GroupError) -> (GroupID, UInt64, ContentType) {
        switch message.body {
        case .publicMessage(let m): (m.content.groupID, m.content.epoch, m.content.contentType)
        case .privateMessage(let m): (m.groupID, m.epoch, m.contentType)
        default: throw .unsupportedMessage("wire format \(message.wireFormat) is not a group message")
        }
    }

    /// A late application message of a retained epoch: decrypted with that epoch's keys.
    private func processPastApplication(
        _ message: PrivateMessage, at index: Int
    ) throws(GroupError) -> (ProcessedMessage, MLSGroup) {
        let (content, past) = try openPast(message, at: index)
        guard case .application(let data) = content.content.body, case .member(let leaf) = content.content.sender,
              let member = past.members[leaf]
        else { throw .malformedMessage("late message is not application data from a member") }
        var next = self
        next.pastEpochs[index] = past
        let result = ApplicationMessage(
            data: data, sender: leaf, credential: member.credential,
            authenticatedData: content.content.authenticatedData, epoch: past.groupContext.epoch)
        return (.application(result), next)
    }

    /// Checks a received proposal on its own (§12.1) and keeps it as pending by reference (§5.2).
    mutating func receive(_ proposal: Proposal, in content: AuthenticatedContent) throws(GroupError) -> PendingProposal {
        let sender = content.content.sender
        switch sender {
        case .member, .external: break
        case .newMemberProposal:
            guard configuration.acceptNewMemberProposals else {
                throw .senderNotAllowed("new_member_proposal senders are not accepted by this group's configuration")
            }
            guard case .add = proposal else { throw .senderNotAllowed("new members may only propose Add") }
        case .newMemberCommit:
            throw .senderNotAllowed("new_member_commit cannot send proposals")
        }
        try validateProposal(proposal, sender: sender)
        let pending = PendingProposal(ref: proposalRef(content), proposal: proposal, sender: sender)
        if !pendingProposals.contains(where: { $0.ref == pending.ref }) { pendingProposals.append(pending) }
        return pending
    }
}
