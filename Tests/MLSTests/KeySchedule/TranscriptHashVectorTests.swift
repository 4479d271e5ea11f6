import Foundation
import Testing
import TestSupport
@testable import MLS

/// transcript-hashes.json: confirmed and interim hashes after a commit, and its confirmation tag.
struct TranscriptHashVectorTests {
    struct Vector: Decodable, Sendable {
        let cipher_suite: UInt16
        let confirmation_key: String
        let authenticated_content: String
        let interim_transcript_hash_before: String
        let confirmed_transcript_hash_after: String
        let interim_transcript_hash_after: String
    }

    @Test func suiteOneVectors() throws {
        guard let vectors = try SharedFixtures.loadJSON([Vector].self, "mls/transcript-hashes.json") else { return }
        let suite = CipherSuiteProvider.mls128X25519
        var ran = 0
        for vector in vectors where vector.cipher_suite == suite.suite.rawValue {
            let contentBytes = try #require(Data(testHex: vector.authenticated_content))
            let confirmationKey = try #require(Data(testHex: vector.confirmation_key))
            let interimBefore = try #require(Data(testHex: vector.interim_transcript_hash_before))
            let confirmedAfter = try #require(Data(testHex: vector.confirmed_transcript_hash_after))
            let interimAfter = try #require(Data(testHex: vector.interim_transcript_hash_after))

            let content = try AuthenticatedContent(tlsSerialized: contentBytes)
            #expect(content.tlsSerialized == contentBytes)
            #expect(content.content.contentType == .commit)
            let tag = try #require(content.auth.confirmationTag)

            let before = TranscriptHashes(confirmed: Data(), interim: interimBefore)
            let after = try before.applying(commit: content, suite: suite)
            #expect(after.confirmed == confirmedAfter)
            #expect(after.interim == interimAfter)

            #expect(TranscriptHashes.confirmationTag(confirmationKey: confirmationKey, confirmed: confirmedAfter, suite: suite) == tag)
            #expect(TranscriptHashes.verifyConfirmationTag(tag, confirmationKey: confirmationKey, confirmed: confirmedAfter, suite: suite))
            ran += 1
        }
        #expect(ran == 1)
        SharedFixtures.report("transcript-hashes.json", ran: ran, skipped: vectors.count - ran)
    }

    @Test func confirmedInputRejectsNonCommit() {
        let content = FramedContent(
            groupID: GroupID(Data([1])), epoch: 0, sender: .member(leafIndex: LeafIndex(0)), authenticatedData: Data(),
            body: .application(Data([1, 2])))
        #expect(throws: MessageDecodingError.unexpectedContentType(.application)) {
            _ = try ConfirmedTranscriptHashInput(wireFormat: .publicMessage, content: content, signature: Data())
        }
    }
}
