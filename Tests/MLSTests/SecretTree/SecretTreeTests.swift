import Foundation
import Testing
@testable import MLS

/// Secret-tree rules beyond the vectors: single use, bounded windows, deletion, redaction.
struct SecretTreeTests {
    let provider = CipherSuiteProvider.mls128X25519

    func makeTree(leaves: UInt32 = 4, configuration: SecretTree.Configuration = .default) throws -> SecretTree {
        SecretTree(
            provider: provider, encryptionSecret: Data(repeating: 0x42, count: 32),
            size: try TreeSize(leafCount: leaves), configuration: configuration)
    }

    @Test func keyIsHandedOutOnce() throws {
        var tree = try makeTree()
        _ = try tree.key(for: LeafIndex(1), type: .application, generation: 0)
        #expect(throws: SecretTreeError.keyAlreadyUsed(generation: 0)) {
            try tree.key(for: LeafIndex(1), type: .application, generation: 0)
        }
        // The other ratchet of the same leaf is independent.
        _ = try tree.key(for: LeafIndex(1), type: .handshake, generation: 0)
    }

    @Test func outOfOrderWithinWindowWorksOnce() throws {
        var tree = try makeTree(configuration: .init(outOfOrderTolerance: 5, maxForwardDistance: 50))
        let leaf = LeafIndex(2)
        let late = try tree.key(for: leaf, type: .application, generation: 10)
        #expect(late.generation == 10)
        #expect(tree.keptGenerations(for: leaf, type: .application) == Set(5...9))
        let early = try tree.key(for: leaf, type: .application, generation: 7)
        #expect(early.generation == 7 && early.key != late.key)
        #expect(throws: SecretTreeError.keyAlreadyUsed(generation: 7)) {
            try tree.key(for: leaf, type: .application, generation: 7)
        }
        #expect(throws: SecretTreeError.generationTooOld(generation: 4, oldestKept: 5)) {
            try tree.key(for: leaf, type: .application, generation: 4)
        }
        // Moving forward drops keys that fall out of the window.
        _ = try tree.key(for: leaf, type: .application, generation: 12)
        #expect(tree.keptGenerations(for: leaf, type: .application) == [8, 9, 11])
    }

    @Test func forwardJumpIsBounded() throws {
        var tree = try makeTree(configuration: .init(outOfOrderTolerance: 5, maxForwardDistance: 50))
        #expect(throws: SecretTreeError.generationTooFarAhead(generation: 51, next: 0)) {
            try tree.key(for: LeafIndex(0), type: .handshake, generation: 51)
        }
        // A rejected request changes nothing.
        #expect(tree.nextGeneration(for: LeafIndex(0), type: .handshake) == 0)
        #expect(try tree.key(for: LeafIndex(0), type: .handshake, generation: 50).generation == 50)
        #expect(tree.keptGenerations(for: LeafIndex(0), type: .handshake).count == 5)
    }

    @Test func defaultWindowIsBounded() throws {
        var tree = try makeTree()
        #expect(throws: SecretTreeError.generationTooFarAhead(generation: 1001, next: 0)) {
            try tree.key(for: LeafIndex(3), type: .application, generation: 1001)
        }
        _ = try tree.key(for: LeafIndex(3), type: .application, generation: 1000)
        #expect(tree.keptGenerations(for: LeafIndex(3), type: .application).count == 100)
    }

    @Test func senderAndReceiverAgree() throws {
        var sender = try makeTree()
        var receiver = try makeTree()
        let first = try sender.nextKey(for: LeafIndex(3), type: .application)
        let second = try sender.nextKey(for: LeafIndex(3), type: .application)
        #expect(first.generation == 0 && second.generation == 1)
        let received = try receiver.key(for: LeafIndex(3), type: .application, generation: 1)
        #expect(received.key == second.key && received.nonce == second.nonce)
        #expect(try receiver.key(for: LeafIndex(3), type: .application, generation: 0).key == first.key)
    }

    @Test func leafOutsideTreeIsRejected() throws {
        var tree = try makeTree(leaves: 4)
        #expect(throws: SecretTreeError.leafOutOfRange(LeafIndex(4))) {
            try tree.key(for: LeafIndex(4), type: .application, generation: 0)
        }
        #expect(throws: SecretTreeError.leafOutOfRange(LeafIndex(UInt32.max))) {
            try tree.nextKey(for: LeafIndex(UInt32.max), type: .handshake)
        }
    }

    @Test func consumedTreeSecretsAreDeleted() throws {
        var tree = try makeTree(leaves: 4)
        #expect(tree.storedNodes == [NodeIndex(3)])
        _ = try tree.nextKey(for: LeafIndex(0), type: .application)
        // Root 3 and node 1 were consumed; what is left are the copath secrets of leaf 0.
        #expect(tree.storedNodes == [NodeIndex(2), NodeIndex(5)])
        _ = try tree.nextKey(for: LeafIndex(3), type: .application)
        #expect(tree.storedNodes == [NodeIndex(2), NodeIndex(4)])
    }

    @Test func reuseGuardXorsTheFirstFourBytes() throws {
        let key = MessageKey(generation: 0, key: Data(count: 16), nonce: Data(repeating: 0xff, count: 12))
        let guarded = try key.nonce(reuseGuard: Data([0x0f, 0xf0, 0x00, 0xff]))
        #expect(guarded == Data([0xf0, 0x0f, 0xff, 0x00] + Array(repeating: 0xff, count: 8)))
        #expect(throws: MLSCryptoError.invalidLength(what: "reuse guard", expected: 4, actual: 3)) {
            try key.nonce(reuseGuard: Data(count: 3))
        }
    }

    @Test func senderDataUsesWholeShortCiphertext() {
        let secret = Data(repeating: 1, count: 32)
        let short = Data([1, 2, 3])
        let long = Data(repeating: 9, count: 32)
        let a = SenderDataKey(provider: provider, senderDataSecret: secret, ciphertext: short)
        let b = SenderDataKey(provider: provider, senderDataSecret: secret, ciphertext: long + Data([1]))
        let c = SenderDataKey(provider: provider, senderDataSecret: secret, ciphertext: long + Data([2]))
        #expect(a.key.count == 16 && a.nonce.count == 12)
        #expect(b.key == c.key && b.nonce == c.nonce)
    }

    @Test func descriptionsAreRedacted() throws {
        var tree = try makeTree()
        let key = try tree.nextKey(for: LeafIndex(0), type: .application)
        #expect("\(tree)" == "SecretTree(4 leaves, redacted)")
        #expect("\(key)" == "MessageKey(generation: 0, redacted)")
        #expect(String(reflecting: key) == "MessageKey(generation: 0, redacted)")
        let sd = SenderDataKey(provider: provider, senderDataSecret: Data(count: 32), ciphertext: Data())
        #expect("\(sd)" == "SenderDataKey(redacted)")
    }
}
