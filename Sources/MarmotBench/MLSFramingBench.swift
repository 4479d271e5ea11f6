import Foundation
import MLS

/// Per-message cost of MLS message protection (RFC 9420 §6.3): sign, encrypt content and sender
/// data, then the receiver's decrypt and verify, for a 100-byte application message.
enum MLSFramingBench {
    static func run() {
        Bench.section("MLS framing (suite 0x0001)")
        let provider = CipherSuiteProvider.mls128X25519
        let context = GroupContext(
            cipherSuite: provider.suite, groupID: GroupID(provider.randomBytes(32)), epoch: 1,
            treeHash: provider.randomBytes(32), confirmedTranscriptHash: provider.randomBytes(32), extensions: [])
        let protection = PrivateMessageProtection(
            provider: provider, groupContext: context, senderDataSecret: provider.randomBytes(32))
        let signer = provider.generateSignatureKey()
        let verifier = signer.publicKey
        let sender = LeafIndex(1)
        let content = FramedContent(
            groupID: context.groupID, epoch: context.epoch, sender: .member(leafIndex: sender), authenticatedData: Data(),
            body: .application(Data(repeating: 0x61, count: 100)))
        do {
            let encryptionSecret = provider.randomBytes(32)
            let size = try TreeSize(leafCount: 8)
            var senderTree = SecretTree(provider: provider, encryptionSecret: encryptionSecret, size: size)
            var receiverTree = SecretTree(provider: provider, encryptionSecret: encryptionSecret, size: size)
            try Bench.measure("PrivateMessage protect + unprotect (100 B)", iterations: 2_000) {
                let message = try protection.protect(content, signer: signer, secretTree: &senderTree)
                _ = try protection.unprotect(message, secretTree: &receiverTree) { _ in verifier }
            }
            var tree = SecretTree(provider: provider, encryptionSecret: encryptionSecret, size: size)
            try Bench.measure("PrivateMessage protect only (100 B)", iterations: 2_000) {
                _ = try protection.protect(content, signer: signer, secretTree: &tree)
            }
        } catch {
            print("MLS framing bench failed: \(error)")
        }
    }
}
