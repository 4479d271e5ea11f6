import Foundation
import Testing
@testable import MLS

/// The group state stored in two blobs (`serializedApart()`): everything but the secret trees, and
/// the secret trees, which alone change with an application message (issue 27). Used keys stay
/// deleted (RFC 9420 §9.2) when only the second blob is rewritten.
struct StateApartTests {
    func contains(_ haystack: Data, _ needle: Data) -> Bool {
        !needle.isEmpty && haystack.range(of: needle) != nil
    }

    @Test func theTwoBlobsRestoreTheSameStateAsTheWholeOne() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let first = try groups[0].encrypt(Data("one".utf8))
        _ = try groups[1].process(first)
        // A retained epoch too: alice commits, so epoch 1 is kept for late messages.
        let update = try groups[0].selfUpdate()
        _ = try groups[1].process(update.message)
        let bob = groups[1]
        #expect(bob.retainedEpochs == [1])

        let (state, ratchets) = bob.serializedApart()
        #expect(state.first == GroupStateEncoding.versionApart)
        let restored = try MLSGroup(serialized: state, ratchets: ratchets)
        #expect(restored.serialized() == bob.serialized())
        #expect(restored.retainedEpochs == [1])
    }

    @Test func theStateBlobHoldsNoTreeSecret() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        _ = try groups[1].process(try groups[0].encrypt(Data("one".utf8)))
        let bob = groups[1]
        let (state, ratchets) = bob.serializedApart()
        var secrets = Array(bob.secretTree.nodeSecrets.values)
        for ratchet in bob.secretTree.ratchets.values {
            secrets += [ratchet.handshake.secret, ratchet.application.secret].compactMap { $0 }
        }
        #expect(!secrets.isEmpty)
        for secret in secrets {
            #expect(!contains(state, secret), "a secret-tree secret is in the state blob")
            #expect(contains(ratchets, secret), "the ratchets blob lacks a secret-tree secret")
        }
    }

    @Test func rewritingOnlyTheRatchetsKeepsAUsedKeyDeleted() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let first = try groups[0].encrypt(Data("one".utf8))
        let second = try groups[0].encrypt(Data("two".utf8))
        // Stored apart before the messages; after reading the first, only the ratchets are written.
        let (state, _) = groups[1].serializedApart()
        _ = try groups[1].process(first)
        var restored = try MLSGroup(serialized: state, ratchets: groups[1].serializedRatchets())

        #expect(throws: (any Error).self) { _ = try restored.process(first) }
        guard case .application(let app) = try restored.process(second) else {
            Issue.record("expected the second message")
            return
        }
        #expect(app.data == Data("two".utf8))
    }

    @Test func ourNextMessageAfterARatchetsOnlyWriteUsesTheNextGeneration() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let (state, _) = groups[0].serializedApart()
        let first = try groups[0].encrypt(Data("one".utf8))
        var restored = try MLSGroup(serialized: state, ratchets: groups[0].serializedRatchets())
        let second = try restored.encrypt(Data("two".utf8))
        // Bob reads both: the restored sender did not reuse the first generation's key and nonce.
        _ = try groups[1].process(first)
        guard case .application(let app) = try groups[1].process(second) else {
            Issue.record("expected the second message")
            return
        }
        #expect(app.data == Data("two".utf8))
    }

    @Test func mismatchedBlobsAreRefused() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let (state, ratchets) = groups[1].serializedApart()
        let update = try groups[0].selfUpdate()
        _ = try groups[1].process(update.message)
        let later = groups[1].serializedRatchets()

        #expect(throws: GroupError.self) { _ = try MLSGroup(serialized: state, ratchets: later) }
        #expect(throws: GroupError.self) { _ = try MLSGroup(serialized: state) }
        #expect(throws: GroupError.self) { _ = try MLSGroup(serialized: groups[1].serialized(), ratchets: ratchets) }
        #expect(throws: GroupError.self) { _ = try MLSGroup(serialized: state, ratchets: Data([1, 2, 3])) }
    }

    @Test func aRetainedEpochWithoutItsTreeInTheRatchetsStaysDropped() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        let update = try groups[0].selfUpdate()
        _ = try groups[1].process(update.message)
        let (state, _) = groups[1].serializedApart()
        #expect(groups[1].retainedEpochs == [1])
        // Dropped after the state was written (it expired); the ratchets written since lack it.
        var expired = groups[1]
        expired.pastEpochs = []
        let restored = try MLSGroup(serialized: state, ratchets: expired.serializedRatchets())
        #expect(restored.retainedEpochs.isEmpty)
        #expect(restored.epoch == groups[1].epoch)
    }
}
