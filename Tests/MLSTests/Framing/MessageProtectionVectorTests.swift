import Foundation
import Testing
import TestSupport
@testable import MLS

/// `message-protection.json`: PublicMessage and PrivateMessage unprotection of the given messages, and
/// protect/unprotect round trips of the raw contents, with sender leaf 1 of a 2-leaf secret tree.
struct MessageProtectionVector: Decodable, Sendable, CustomTestStringConvertible {
    let cipher_suite: UInt16
    let group_id: String
    let epoch: UInt64
    let tree_hash: String
    let confirmed_transcript_hash: String
    let signature_priv: String
    let signature_pub: String
    let encryption_secret: String
    let sender_data_secret: String
    let membership_key: String
    let proposal: String
    let proposal_pub: String
    let proposal_priv: String
    let commit: String
    let commit_pub: String
    let commit_priv: String
    let application: String
    let application_priv: String

    var testDescription: String { "suite \(cipher_suite), epoch \(epoch)" }

    static let suite1: [MessageProtectionVector] = {
        let cases = (try? SharedFixtures.loadJSON([MessageProtectionVector].self, "mls/message-protection.json")) ?? nil
        let mine = (cases ?? []).filter { $0.cipher_suite == 1 }
        SharedFixtures.report(
            "mls/message-protection.json (protect/unprotect, public + private)", ran: mine.count,
            skipped: (cases?.count ?? 0) - mine.count, reason: "other cipher suites")
        return mine
    }()
}

/// The values one vector entry sets up.
struct ProtectionFixture {
    let provider = CipherSuiteProvider.mls128X25519
    let context: GroupContext
    let signer: SignaturePrivateKey
    let verifier: SignaturePublicKey
    let encryptionSecret: Data
    let publicProtection: PublicMessageProtection
    let privateProtection: PrivateMessageProtection
    static let sender = LeafIndex(1)

    init(_ v: MessageProtectionVector) throws {
        context = GroupContext(
            cipherSuite: CipherSuite(rawValue: v.cipher_suite), groupID: GroupID(try hex(v.group_id)), epoch: v.epoch,
            treeHash: try hex(v.tree_hash), confirmedTranscriptHash: try hex(v.confirmed_transcript_hash), extensions: [])
        signer = try SignaturePrivateKey(seed: try hex(v.signature_priv))
        verifier = SignaturePublicKey(try hex(v.signature_pub))
        encryptionSecret = try hex(v.encryption_secret)
        publicProtection = PublicMessageProtection(
            provider: provider, groupContext: context, membershipKey: try hex(v.membership_key))
        privateProtection = PrivateMessageProtection(
            provider: provider, groupContext: context, senderDataSecret: try hex(v.sender_data_secret))
    }

    /// A fresh 2-leaf secret tree for the epoch.
    func secretTree() throws -> SecretTree {
        SecretTree(provider: provider, encryptionSecret: encryptionSecret, size: try TreeSize(leafCount: 2))
    }

    /// Leaf 1 is the only member whose key is known.
    func lookup(_ leaf: LeafIndex) -> SignaturePublicKey? { leaf == Self.sender ? verifier : nil }

    func content(_ body: FramedContent.Body, authenticatedData: Data = Data()) -> FramedContent {
        FramedContent(
            groupID: context.groupID, epoch: context.epoch, sender: .member(leafIndex: Self.sender),
            authenticatedData: authenticatedData, body: body)
    }
}

struct MessageProtectionVectorTests {
    @Test func vectorFileHasSuite1() {
        guard SharedFixtures.shouldRun else { return }
        #expect(MessageProtectionVector.suite1.count == 1)
    }

    static func publicMessage(_ hexString: String) throws -> PublicMessage {
        guard case .publicMessage(let message) = try MLSMessage(tlsSerialized: try hex(hexString)).body else {
            throw FixtureError.malformed("not a PublicMessage")
        }
        return message
    }

    static func privateMessage(_ hexString: String) throws -> PrivateMessage {
        guard case .privateMessage(let message) = try MLSMessage(tlsSerialized: try hex(hexString)).body else {
            throw FixtureError.malformed("not a PrivateMessage")
        }
        return message
    }

    /// The given `*_pub` messages unprotect to the raw contents; our own PublicMessages round-trip.
    @Test(arguments: MessageProtectionVector.suite1)
    func publicMessages(_ v: MessageProtectionVector) throws {
        let f = try ProtectionFixture(v)
        let proposal = try Proposal(tlsSerialized: try hex(v.proposal))
        let commit = try Commit(tlsSerialized: try hex(v.commit))
        for (name, pubHex, body) in [
            ("proposal", v.proposal_pub, FramedContent.Body.proposal(proposal)), ("commit", v.commit_pub, .commit(commit)),
        ] {
            let given = try Self.publicMessage(pubHex)
            let unprotected = try f.publicProtection.unprotect(given, signatureKey: f.verifier)
            #expect(unprotected.content.body == body, "\(name)_pub content")
            #expect(unprotected.content.sender == .member(leafIndex: ProtectionFixture.sender))
            #expect(unprotected.wireFormat == .publicMessage)

            let ours = try f.publicProtection.protect(
                f.content(body, authenticatedData: given.content.authenticatedData), signer: f.signer,
                confirmationTag: given.auth.confirmationTag)
            #expect(ours.membershipTag != nil)
            let reread = try PublicMessage(tlsSerialized: ours.tlsSerialized)
            let roundTrip = try f.publicProtection.unprotect(reread, signatureKey: f.verifier)
            #expect(roundTrip.content.body == body, "\(name) own PublicMessage content")
            #expect(roundTrip.auth.confirmationTag == given.auth.confirmationTag)
        }
        // Application data must not be sent as a PublicMessage (RFC 9420 §6).
        #expect(throws: MessageProtectionError.applicationMessageMustBeEncrypted) {
            try f.publicProtection.protect(f.content(.application(try hex(v.application))), signer: f.signer)
        }
    }

    /// The given `*_priv` messages decrypt (each with a fresh tree) to the raw contents; our own
    /// PrivateMessages decrypt with a tree other than the sender's.
    @Test(arguments: MessageProtectionVector.suite1)
    func privateMessages(_ v: MessageProtectionVector) throws {
        let f = try ProtectionFixture(v)
        let commitTag = try Self.publicMessage(v.commit_pub).auth.confirmationTag
        for (name, privHex, body) in [
            ("proposal", v.proposal_priv, FramedContent.Body.proposal(try Proposal(tlsSerialized: try hex(v.proposal)))),
            ("commit", v.commit_priv, .commit(try Commit(tlsSerialized: try hex(v.commit)))),
            ("application", v.application_priv, .application(try hex(v.application))),
        ] {
            var receiver = try f.secretTree()
            let given = try Self.privateMessage(privHex)
            let unprotected = try f.privateProtection.unprotect(given, secretTree: &receiver, signatureKey: f.lookup)
            #expect(unprotected.content.body == body, "\(name)_priv content")
            #expect(unprotected.content.sender == .member(leafIndex: ProtectionFixture.sender))
            #expect(unprotected.wireFormat == .privateMessage)
            #expect(unprotected.content.authenticatedData == given.authenticatedData)

            var sender = try f.secretTree()
            var fresh = try f.secretTree()
            let tag = body.contentType == .commit ? commitTag : nil
            let ours = try f.privateProtection.protect(
                f.content(body, authenticatedData: given.authenticatedData), signer: f.signer, confirmationTag: tag,
                secretTree: &sender)
            #expect(ours.contentType == body.contentType)
            let reread = try PrivateMessage(tlsSerialized: ours.tlsSerialized)
            let roundTrip = try f.privateProtection.unprotect(reread, secretTree: &fresh, signatureKey: f.lookup)
            #expect(roundTrip.content.body == body, "\(name) own PrivateMessage content")
            #expect(roundTrip.auth.confirmationTag == tag)
            let ratchet = PrivateMessageProtection.ratchet(for: body.contentType)
            #expect(sender.nextGeneration(for: ProtectionFixture.sender, type: ratchet) == 1)
        }
    }
}
