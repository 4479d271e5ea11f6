import Foundation
import Testing
import TestSupport
@testable import MLS

/// `secret-tree.json`: sender-data key/nonce and every listed leaf/generation key for both ratchets.
struct SecretTreeVector: Decodable, Sendable, CustomTestStringConvertible {
    struct SenderData: Decodable, Sendable {
        let sender_data_secret: String; let ciphertext: String; let key: String; let nonce: String
    }
    struct Generation: Decodable, Sendable {
        let generation: UInt32
        let handshake_key: String, handshake_nonce: String
        let application_key: String, application_nonce: String
    }

    let cipher_suite: UInt16
    let sender_data: SenderData
    let encryption_secret: String
    let leaves: [[Generation]]

    var testDescription: String { "suite \(cipher_suite), \(leaves.count) leaves" }

    static let suite1: [SecretTreeVector] = {
        let cases = (try? SharedFixtures.loadJSON([SecretTreeVector].self, "mls/secret-tree.json")) ?? nil
        let mine = (cases ?? []).filter { $0.cipher_suite == 1 }
        SharedFixtures.report(
            "mls/secret-tree.json", ran: mine.count, skipped: (cases?.count ?? 0) - mine.count,
            reason: "other cipher suites")
        return mine
    }()
}

struct SecretTreeVectorTests {
    let provider = CipherSuiteProvider.mls128X25519

    @Test func vectorFileHasSuite1() {
        guard SharedFixtures.shouldRun else { return }
        #expect(SecretTreeVector.suite1.map(\.leaves.count) == [1, 8, 32])
    }

    @Test(arguments: SecretTreeVector.suite1)
    func senderDataKey(_ v: SecretTreeVector) throws {
        let keys = SenderDataKey(
            provider: provider, senderDataSecret: try hex(v.sender_data.sender_data_secret),
            ciphertext: try hex(v.sender_data.ciphertext))
        #expect(keys.key == (try hex(v.sender_data.key)))
        #expect(keys.nonce == (try hex(v.sender_data.nonce)))
    }

    @Test(arguments: SecretTreeVector.suite1)
    func everyLeafAndGeneration(_ v: SecretTreeVector) throws {
        var tree = SecretTree(
            provider: provider, encryptionSecret: try hex(v.encryption_secret),
            size: try TreeSize(leafCount: UInt32(v.leaves.count)))
        var checked = 0
        for (index, generations) in v.leaves.enumerated() {
            let leaf = LeafIndex(UInt32(index))
            for g in generations {
                let handshake = try tree.key(for: leaf, type: .handshake, generation: g.generation)
                let application = try tree.key(for: leaf, type: .application, generation: g.generation)
                #expect(handshake.generation == g.generation && application.generation == g.generation)
                #expect(handshake.key == (try hex(g.handshake_key)), "leaf \(index) gen \(g.generation) handshake key")
                #expect(handshake.nonce == (try hex(g.handshake_nonce)), "leaf \(index) gen \(g.generation) handshake nonce")
                #expect(application.key == (try hex(g.application_key)), "leaf \(index) gen \(g.generation) app key")
                #expect(application.nonce == (try hex(g.application_nonce)), "leaf \(index) gen \(g.generation) app nonce")
                checked += 1
            }
        }
        #expect(checked == v.leaves.reduce(0) { $0 + $1.count })
        // Every leaf was derived, so no tree secret is left (RFC 9420 §9.2).
        #expect(tree.storedNodes.isEmpty)
    }

    /// The same keys come out of a tree used by senders (nextKey), generation after generation.
    @Test(arguments: SecretTreeVector.suite1)
    func senderSideMatches(_ v: SecretTreeVector) throws {
        var tree = SecretTree(
            provider: provider, encryptionSecret: try hex(v.encryption_secret),
            size: try TreeSize(leafCount: UInt32(v.leaves.count)))
        let leaf = LeafIndex(UInt32(v.leaves.count - 1))
        for g in try #require(v.leaves.last) {
            var key = try tree.nextKey(for: leaf, type: .application)
            while key.generation < g.generation { key = try tree.nextKey(for: leaf, type: .application) }
            #expect(key.key == (try hex(g.application_key)))
            #expect(key.nonce == (try hex(g.application_nonce)))
        }
    }
}
