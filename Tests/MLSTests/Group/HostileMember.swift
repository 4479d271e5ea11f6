import Foundation
import Testing
@testable import MLS

/// A member that skips its own checks: it signs and frames whatever it is told to, so tests can
/// attempt attacks with messages an honest client would never produce.
enum HostileMember {
    /// The same state under another configuration (e.g. a member that lets itself change identity).
    static func reconfigured(_ group: MLSGroup, _ change: (inout GroupConfiguration) -> Void) -> MLSGroup {
        var configuration = group.configuration
        change(&configuration)
        return MLSGroup(
            provider: group.provider, configuration: configuration, groupContext: group.groupContext, tree: group.tree,
            ownLeafIndex: group.ownLeafIndex, isActive: group.isActive, privateKeys: group.privateKeys,
            signer: group.signer, epochSecrets: group.epochSecrets, secretTree: group.secretTree,
            transcriptHashes: group.transcriptHashes, pendingProposals: group.pendingProposals,
            pendingUpdateKeys: group.pendingUpdateKeys, pastEpochs: group.pastEpochs,
            sentHandshakes: group.sentHandshakes)
    }

    /// Signs `body` as `sender` (default: the member itself) with the member's key and frames it
    /// with the member's epoch keys, without validating anything.
    static func frame(
        _ body: FramedContent.Body, by group: inout MLSGroup, sender: Sender? = nil,
        wireFormat: WireFormat = .privateMessage
    ) throws -> MLSMessage {
        var content = group.framedContent(body, authenticatedData: Data())
        if let sender { content.sender = sender }
        let authenticated = try AuthenticatedContent.sign(
            content, wireFormat: wireFormat, groupContext: group.groupContext, signer: group.signer,
            provider: group.provider)
        return try group.protect(authenticated)
    }

    /// A fresh Update leaf for the member's position, with `credential` instead of its own.
    static func updateLeaf(of group: MLSGroup, claiming credential: Credential) throws -> LeafNode {
        var leaf = try #require(group.ownLeafNode)
        leaf.credential = credential
        leaf.encryptionKey = group.provider.generateKeyPair().publicKey
        leaf.source = .update
        try group.provider.signLeafNode(&leaf, with: group.signer, groupID: group.groupID, leafIndex: group.ownLeafIndex)
        return leaf
    }

    /// `process` must fail and leave the serialized state byte for byte as it was.
    static func expectRejected(
        _ message: MLSMessage, by group: inout MLSGroup, sourceLocation: SourceLocation = #_sourceLocation,
        _ check: (GroupError) -> Bool
    ) {
        let before = group.serialized()
        do {
            let result = try group.process(message)
            Issue.record("accepted: \(result)", sourceLocation: sourceLocation)
        } catch {
            #expect(check(error), "unexpected error \(error)", sourceLocation: sourceLocation)
        }
        #expect(group.serialized() == before, "state changed", sourceLocation: sourceLocation)
    }
}
