import Foundation
import Testing
@testable import MLS

/// Malformed encodings are rejected with the specific error, never guessed at or crashed on.
struct MessageRejectionTests {
    /// Replaces `count` bytes at `offset`.
    func patch(_ data: Data, at offset: Int, count: Int = 1, with bytes: [UInt8]) -> Data {
        var copy = Data(data)
        copy.replaceSubrange(offset..<(offset + count), with: bytes)
        return copy
    }

    @Test func everyStrictPrefixIsTruncated() {
        for sample in MessageSamples.encodedSamples {
            for length in 0..<sample.bytes.count {
                let prefix = Data(sample.bytes.prefix(length))
                do {
                    try sample.decode(prefix)
                    Issue.record("\(sample.name): prefix of \(length)/\(sample.bytes.count) bytes decoded")
                } catch TLSDecodingError.truncated {
                } catch {
                    Issue.record("\(sample.name): prefix of \(length) bytes failed with \(error), not truncation")
                }
            }
        }
    }

    @Test func trailingBytesAreRejected() {
        for sample in MessageSamples.encodedSamples {
            #expect(throws: TLSDecodingError.trailingBytes(1), "\(sample.name)") { try sample.decode(sample.bytes + [0]) }
        }
    }

    @Test func overLongLengthHeaders() throws {
        // PrivateMessage: ciphertext (last field, 40 bytes) claims 41.
        let message = MessageSamples.privateMessage().tlsSerialized
        let headerOffset = message.count - 41
        #expect(message[headerOffset] == 40)
        #expect(throws: TLSDecodingError.truncated(needed: 41, available: 40)) {
            _ = try PrivateMessage(tlsSerialized: patch(message, at: headerOffset, with: [41]))
        }
        // Commit: the proposals vector claims 6 bytes but its Remove needs 7; the bytes after it exist
        // in the buffer, yet the nested reader must not read past the vector.
        let commit = Commit(proposals: [.proposal(.remove(Remove(removed: LeafIndex(1))))], path: nil).tlsSerialized
        #expect(commit == Data([7, 1, 0, 3, 0, 0, 0, 1, 0]))
        #expect(throws: TLSDecodingError.truncated(needed: 4, available: 3)) {
            _ = try Commit(tlsSerialized: patch(commit, at: 0, with: [6]))
        }
        // A leaf's credential identity claims more than the whole input.
        let credential = Credential.basic(identity: Data([1, 2])).tlsSerialized
        #expect(throws: TLSDecodingError.truncated(needed: 0x3fff, available: 2)) {
            _ = try Credential(tlsSerialized: patch(credential, at: 2, with: [0x7f, 0xff]))
        }
    }

    @Test func nonMinimalVarintInsideStructs() {
        // MLSMessage(PrivateMessage): group_id length 3 rewritten as the 2-byte form 0x40 0x03.
        let message = MLSMessage(.privateMessage(MessageSamples.privateMessage())).tlsSerialized
        #expect(message[4] == 3)
        #expect(throws: TLSDecodingError.nonMinimalVarint) {
            _ = try MLSMessage(tlsSerialized: patch(message, at: 4, with: [0x40, 0x03]))
        }
        // KeyPackage: init_key length 32 rewritten as 0x80 0x00 0x00 0x20.
        let kp = MessageSamples.keyPackage().tlsSerialized
        #expect(kp[4] == 32)
        #expect(throws: TLSDecodingError.nonMinimalVarint) {
            _ = try KeyPackage(tlsSerialized: patch(kp, at: 4, with: [0x80, 0x00, 0x00, 0x20]))
        }
    }

    @Test func unknownWireFormatAndVersion() {
        let message = MLSMessage(.welcome(MessageSamples.welcome())).tlsSerialized
        for format: UInt16 in [0, 6, 0xf000] {
            #expect(throws: MessageDecodingError.unknownWireFormat(format)) {
                _ = try MLSMessage(tlsSerialized: patch(message, at: 2, count: 2, with: [UInt8(format >> 8), UInt8(format & 0xff)]))
            }
        }
        #expect(throws: MessageDecodingError.unsupportedVersion(2)) {
            _ = try MLSMessage(tlsSerialized: patch(message, at: 0, count: 2, with: [0, 2]))
        }
        #expect(throws: MessageDecodingError.unsupportedVersion(0)) {
            _ = try MLSMessage(tlsSerialized: patch(message, at: 0, count: 2, with: [0, 0]))
        }
        var keyPackage = MessageSamples.keyPackage()
        keyPackage.version = ProtocolVersion(rawValue: 2)
        #expect(throws: MessageDecodingError.keyPackageVersionMismatch(2)) {
            _ = try MLSMessage(tlsSerialized: MLSMessage(.keyPackage(keyPackage)).tlsSerialized)
        }
    }

    @Test func unknownContentType() {
        // PrivateMessage: group_id (1 + 3 bytes), epoch (8), then content_type.
        let message = MessageSamples.privateMessage().tlsSerialized
        #expect(message[12] == 1)
        for bad: UInt8 in [0, 4, 255] {
            #expect(throws: MessageDecodingError.unknownContentType(bad)) {
                _ = try PrivateMessage(tlsSerialized: patch(message, at: 12, with: [bad]))
            }
        }
        #expect(throws: MessageDecodingError.unknownContentType(4)) {
            _ = try SenderDataAAD(tlsSerialized: Data([0]) + Data(count: 8) + [4])
        }
    }

    @Test func unknownSenderType() {
        // FramedContent: group_id (4 bytes), epoch (8), then sender_type.
        let content = MessageSamples.framedContent(body: .application(Data([1]))).tlsSerialized
        #expect(content[12] == 1)
        for bad: UInt8 in [0, 5] {
            #expect(throws: MessageDecodingError.unknownSenderType(bad)) {
                _ = try FramedContent(tlsSerialized: patch(content, at: 12, with: [bad]))
            }
        }
    }

    @Test func optionalPresenceOtherThanZeroOrOne() {
        let commit = MessageSamples.commit(withPath: false).tlsSerialized
        #expect(commit.last == 0)
        #expect(throws: TLSDecodingError.invalidOptionalPresence(2)) {
            _ = try Commit(tlsSerialized: patch(commit, at: commit.count - 1, with: [2]))
        }
        let secrets = GroupSecrets(joinerSecret: Data([1]), pathSecret: nil, psks: []).tlsSerialized
        #expect(secrets == Data([1, 1, 0, 0]))
        #expect(throws: TLSDecodingError.invalidOptionalPresence(2)) {
            _ = try GroupSecrets(tlsSerialized: patch(secrets, at: 2, with: [2]))
        }
        let tree = RatchetTreeNodes(nodes: [.leaf(MessageSamples.leafNode())]).tlsSerialized
        #expect(throws: TLSDecodingError.invalidOptionalPresence(2)) {
            _ = try RatchetTreeNodes(tlsSerialized: patch(tree, at: 2, with: [2]))
        }
    }

    @Test func unknownSelectorsInTreeAndCommit() {
        // Node type 3.
        let tree = RatchetTreeNodes(nodes: [.leaf(MessageSamples.leafNode())]).tlsSerialized
        #expect(tree[3] == 1)
        #expect(throws: MessageDecodingError.unknownNodeType(3)) {
            _ = try RatchetTreeNodes(tlsSerialized: patch(tree, at: 3, with: [3]))
        }
        // LeafNodeSource 0 and 4: the update leaf's source byte precedes extensions<V> and the
        // 64-byte signature (2-byte header).
        let leaf = MessageSamples.leafNode(source: .update).tlsSerialized
        let extensionsAndSignature = Extension(ApplicationIDExtension(applicationID: Data("app".utf8))).tlsSerialized.count + 1 + 66
        let sourceOffset = leaf.count - extensionsAndSignature - 1
        #expect(leaf[sourceOffset] == 2)
        for bad: UInt8 in [0, 4] {
            #expect(throws: MessageDecodingError.unknownLeafNodeSource(bad)) {
                _ = try LeafNode(tlsSerialized: patch(leaf, at: sourceOffset, with: [bad]))
            }
        }
        // ProposalOrRef type 3, and proposal types with no known body (0x0008 AppDataUpdate is known since v2).
        #expect(throws: MessageDecodingError.unknownProposalOrRefType(3)) {
            _ = try Commit(tlsSerialized: Data([7, 3, 0, 3, 0, 0, 0, 1, 0]))
        }
        for type: UInt16 in [0, 0x0009, 0x0a0a, 0xf000] {
            #expect(throws: MessageDecodingError.unknownProposalType(type)) {
                _ = try Commit(tlsSerialized: Data([3, 1, UInt8(type >> 8), UInt8(type & 0xff), 0]))
            }
        }
    }

    @Test func ratchetTreeStructure() {
        let leaf = Node.leaf(MessageSamples.leafNode())
        let parent = Node.parent(ParentNode(encryptionKey: HPKEPublicKey(Data([1])), parentHash: Data(), unmergedLeaves: []))
        #expect(throws: MessageDecodingError.ratchetTreeEndsBlank) {
            _ = try RatchetTreeNodes(tlsSerialized: RatchetTreeNodes(nodes: [leaf, nil]).tlsSerialized)
        }
        #expect(throws: MessageDecodingError.ratchetTreeEndsBlank) { _ = try RatchetTreeNodes(tlsSerialized: Data([0])) }
        #expect(throws: MessageDecodingError.ratchetTreeNodeMisplaced(index: 0)) {
            _ = try RatchetTreeNodes(tlsSerialized: RatchetTreeNodes(nodes: [parent]).tlsSerialized)
        }
        #expect(throws: MessageDecodingError.ratchetTreeNodeMisplaced(index: 1)) {
            _ = try RatchetTreeNodes(tlsSerialized: RatchetTreeNodes(nodes: [leaf, leaf]).tlsSerialized)
        }
        #expect(throws: Never.self) {
            _ = try RatchetTreeNodes(tlsSerialized: RatchetTreeNodes(nodes: [leaf, nil, nil, parent, leaf]).tlsSerialized)
        }
    }

    @Test func nonZeroPaddingIsRejected() throws {
        let content = PrivateMessageContent(
            body: .application(Data("hi".utf8)), auth: FramedContentAuthData(signature: Data([5]), confirmationTag: nil), paddingLength: 8)
        let plaintext = content.tlsSerialized
        let paddingStart = plaintext.count - 8
        for offset in [0, 3, 7] {
            #expect(throws: MessageDecodingError.nonZeroPadding(offset: offset)) {
                _ = try PrivateMessageContent(plaintext: patch(plaintext, at: paddingStart + offset, with: [0x01]), contentType: .application)
            }
        }
        // A slice with a non-zero start index reports the offset within the padding, too.
        let sliced = (Data([0xff, 0xff]) + patch(plaintext, at: paddingStart + 2, with: [0x80])).dropFirst(2)
        #expect(throws: MessageDecodingError.nonZeroPadding(offset: 2)) {
            _ = try PrivateMessageContent(plaintext: sliced, contentType: .application)
        }
        // The content must still be complete before the padding.
        #expect(throws: TLSDecodingError.truncated(needed: 2, available: 1)) {
            _ = try PrivateMessageContent(plaintext: Data([2, 0x68]), contentType: .application)
        }
    }
}
