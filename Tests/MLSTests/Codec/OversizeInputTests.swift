import Foundation
import Testing
@testable import MLS

/// Oversize and overflowing inputs throw (or are marked invalid); nothing traps.
struct OversizeInputTests {
    @Test func lengthPrefixNearTheLimitIsTruncationNotATrap() throws {
        // The largest 4-byte header (2^30 - 1) over a few bytes, and the reserved 8-byte form.
        for header in [[0xbf, 0xff, 0xff, 0xff], [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]] as [[UInt8]] {
            var reader = TLSReader(Data(header + [1, 2, 3]))
            #expect(throws: TLSDecodingError.self) { try reader.readOpaque() }
            #expect(throws: (any Error).self) { try MLSMessage(tlsSerialized: Data([0, 1, 0, 1] + header + [1, 2, 3])) }
        }
        // A varint header cut short.
        var cut = TLSReader(Data([0x80, 0x01]))
        #expect(throws: TLSDecodingError.self) { try cut.readVarint() }
    }

    @Test func writingAVectorBeyondTheLimitMarksTheOutputInvalidInsteadOfTrapping() throws {
        var writer = TLSWriter()
        writer.writeVarint(1 << 30)
        #expect(writer.overflowed)
        writer.writeVarint(-1)
        #expect(writer.overflowed)
        var fine = TLSWriter()
        fine.writeVarint((1 << 30) - 1)
        #expect(!fine.overflowed)
    }

    @Test func hugeGenerationsAreRejected() throws {
        let provider = CipherSuiteProvider.mls128X25519
        var tree = SecretTree(provider: provider, encryptionSecret: provider.randomBytes(32), size: try TreeSize(leafCount: 2))
        #expect(throws: SecretTreeError.generationTooFarAhead(generation: .max, next: 0)) {
            try tree.key(for: LeafIndex(0), type: .application, generation: .max)
        }
        #expect(throws: SecretTreeError.leafOutOfRange(LeafIndex(.max))) {
            try tree.key(for: LeafIndex(.max), type: .application, generation: 0)
        }
        // A ratchet at its last generation hands it out once, then is exhausted.
        var ratchet = HashRatchet(secret: provider.randomBytes(32))
        ratchet.next = UInt64(UInt32.max)
        #expect(try ratchet.nextKey(provider).generation == .max)
        #expect(throws: SecretTreeError.generationsExhausted) { try ratchet.nextKey(provider) }
        #expect(throws: SecretTreeError.self) {
            try ratchet.key(for: .max, provider, configuration: .init(outOfOrderTolerance: .max, maxForwardDistance: .max))
        }
    }

    @Test func impossibleTreeSizesAreRejected() throws {
        #expect(throws: TreeMathError.invalidLeafCount(0)) { try TreeSize(leafCount: 0) }
        #expect(throws: TreeMathError.invalidLeafCount(.max)) { try TreeSize(leafCount: .max) }
        #expect(throws: TreeMathError.invalidLeafCount((1 << 31) + 1)) { try TreeSize(leafCount: (1 << 31) + 1) }
        // A stored state whose tree is an empty node list.
        var w = TLSWriter()
        w.writeVector { _ in }
        var r = TLSReader(w.data)
        #expect(throws: (any Error).self) { try GroupStateEncoding.readTree(&r, provider: .mls128X25519) }
    }

    @Test func epochAtTheCeilingCannotAdvance() throws {
        var groups = try GroupTest.makeGroup(["alice", "bob"])
        groups[0].groupContext.epoch = .max
        #expect(throws: GroupError.tooLarge("epoch \(UInt64.max) cannot advance")) { try groups[0].selfUpdate() }
    }
}
