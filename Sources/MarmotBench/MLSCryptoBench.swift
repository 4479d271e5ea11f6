import Foundation
import MLS

/// Costs of the suite-0x0001 primitives the group layer calls per message and per commit.
enum MLSCryptoBench {
    static func run() {
        Bench.section("MLS crypto (suite 0x0001)")
        let provider = CipherSuiteProvider.mls128X25519
        let secret = Data(repeating: 0x11, count: 32)
        let context = Data(repeating: 0x22, count: 32)
        let content = Data(repeating: 0x33, count: 256)
        do {
            try Bench.measure("ExpandWithLabel (32 B out)", iterations: 20_000) {
                _ = try provider.expandWithLabel(secret: secret, label: "bench", context: context, length: 32)
            }
            let signer = provider.generateSignatureKey()
            let verifier = signer.publicKey
            let signature = try provider.signWithLabel(signer, label: "FramedContentTBS", content: content)
            try Bench.measure("SignWithLabel (256 B)", iterations: 2_000) {
                _ = try provider.signWithLabel(signer, label: "FramedContentTBS", content: content)
            }
            Bench.measure("VerifyWithLabel (256 B)", iterations: 2_000) {
                _ = provider.verifyWithLabel(verifier, label: "FramedContentTBS", content: content, signature: signature)
            }
            let recipient = provider.generateKeyPair()
            let sealed = try provider.encryptWithLabel(
                recipient.publicKey, label: "UpdatePathNode", context: context, plaintext: secret)
            try Bench.measure("EncryptWithLabel (HPKE seal, 32 B)", iterations: 1_000) {
                _ = try provider.encryptWithLabel(
                    recipient.publicKey, label: "UpdatePathNode", context: context, plaintext: secret)
            }
            try Bench.measure("DecryptWithLabel (HPKE open, 32 B)", iterations: 1_000) {
                _ = try provider.decryptWithLabel(
                    recipient, label: "UpdatePathNode", context: context, kemOutput: sealed.kemOutput,
                    ciphertext: sealed.ciphertext)
            }
            try Bench.measure("DeriveKeyPair (X25519)", iterations: 5_000) {
                _ = try provider.deriveKeyPair(ikm: secret)
            }
            var tree = SecretTree(provider: provider, encryptionSecret: secret, size: try TreeSize(leafCount: 1024))
            var leaf: UInt32 = 0
            try Bench.measure("SecretTree next application key", iterations: 10_000) {
                _ = try tree.nextKey(for: LeafIndex(leaf % 1024), type: .application)
                leaf &+= 1
            }
        } catch {
            print("MLS crypto bench failed: \(error)")
        }
    }
}
