import Foundation
import MLS
import Nostr
import Testing
@testable import MarmotWire

/// EpochSecrets holding only a known exporter_secret (the other secrets do not matter to MLS-Exporter).
func epochSecrets(exporterSecretHex: String) -> EpochSecrets {
    let zero = Data(repeating: 0, count: 32)
    return EpochSecrets(
        restoring: .mls128X25519, joinerSecret: zero, welcomeSecret: zero, senderDataSecret: zero,
        encryptionSecret: zero, exporterSecret: MarmotVectors.bytes(exporterSecretHex), externalSecret: zero,
        confirmationKey: zero, membershipKey: zero, resumptionPSK: zero, epochAuthenticator: zero, initSecret: zero)
}

@Suite struct GroupEventKeyTests {
    @Test func derivesMDKGroupEventKeys() throws {
        let epoch1 = try GroupEventKey(epochSecrets: epochSecrets(exporterSecretHex: MarmotVectors.epoch1ExporterSecretHex))
        #expect(epoch1.rawBytesForStorage.testHex == MarmotVectors.epoch1GroupEventKeyHex)
        let mip04 = try GroupEventKey(epochSecrets: epochSecrets(exporterSecretHex: MarmotVectors.mip04ExporterSecretHex))
        #expect(mip04.rawBytesForStorage.testHex == MarmotVectors.mip04GroupEventKeyHex)
        let secrets = epochSecrets(exporterSecretHex: MarmotVectors.mip04ExporterSecretHex)
        let viaClosure = try GroupEventKey { try secrets.exporter(label: $0, context: $1, length: $2) }
        #expect(viaClosure == mip04)
        MarmotVectors.report("§12.4/§12.5 group-event keys", ran: 2)
    }

    @Test func keyIsRedactedAndSized() {
        #expect(throws: GroupEventError.invalidKeyLength(31)) { try GroupEventKey(bytes: Data(count: 31)) }
        let key = try? GroupEventKey(bytes: Data(repeating: 0xab, count: 32))
        #expect(String(describing: key!) == "GroupEventKey(redacted)")
    }
}

@Suite struct GroupEventCipherTests {
    let key = try! GroupEventKey(bytes: MarmotVectors.bytes(MarmotVectors.epoch1GroupEventKeyHex))

    @Test func decryptsMDKSelfRemove() throws {
        let plaintext = try GroupEventCipher.decrypt(MarmotVectors.selfRemoveContent, key: key)
        #expect(plaintext.count == 137)
        #expect(plaintext.prefix(21).testHex == "0001000110" + MarmotVectors.mlsGroupIDHex)
        let message = try MLSMessage(tlsSerialized: plaintext)
        guard case .publicMessage(let publicMessage) = message.body else {
            Issue.record("expected a PublicMessage, got \(message.wireFormat)")
            return
        }
        #expect(publicMessage.content.groupID.bytes.testHex == MarmotVectors.mlsGroupIDHex)
        #expect(publicMessage.content.epoch == 1)
        #expect(publicMessage.content.sender == .member(leafIndex: LeafIndex(1)))
        #expect(publicMessage.content.body == .proposal(.selfRemove(SelfRemove())))
        #expect(publicMessage.membershipTag?.count == 32)
        MarmotVectors.report("§12.4 SelfRemove kind-445 content", ran: 1)
    }

    @Test func roundTrips() throws {
        for size in [0, 1, 100, 5000] {
            let plaintext = Data((0..<size).map { UInt8(truncatingIfNeeded: $0) })
            let content = try GroupEventCipher.encrypt(plaintext, key: key)
            #expect(Base64.decode(content)?.count == size + 28)
            #expect(try GroupEventCipher.decrypt(content, key: key) == plaintext)
        }
    }

    @Test func freshNoncePerMessage() throws {
        let a = try GroupEventCipher.encrypt(Data("x".utf8), key: key)
        let b = try GroupEventCipher.encrypt(Data("x".utf8), key: key)
        #expect(a != b)
    }

    @Test func rejectsTamperingAndWrongKey() throws {
        let content = try GroupEventCipher.encrypt(Data("hello".utf8), key: key)
        var bytes = try #require(Base64.decode(content))
        for index in [0, 12, bytes.count - 1] {
            var tampered = bytes
            tampered[index] ^= 0x01
            #expect(throws: GroupEventError.decryptionFailed) {
                try GroupEventCipher.decrypt(Base64.encode(tampered), key: key)
            }
        }
        let other = try GroupEventKey(bytes: Data(repeating: 1, count: 32))
        #expect(throws: GroupEventError.decryptionFailed) { try GroupEventCipher.decrypt(content, key: other) }
        bytes.removeLast()
        #expect(throws: GroupEventError.decryptionFailed) { try GroupEventCipher.decrypt(Base64.encode(bytes), key: key) }
    }

    @Test func rejectsMalformedContent() {
        let short = Base64.encode([UInt8](repeating: 0, count: 27))
        for content in [short, "not base64!", "AAAA", String(MarmotVectors.selfRemoveContent.dropLast())] {
            #expect(throws: GroupEventError.self) { try GroupEventCipher.decrypt(content, key: key) }
        }
        #expect {
            try GroupEventCipher.decrypt(short, key: key)
        } throws: { error in
            if case GroupEventError.invalidContent = error { return true }
            return false
        }
    }
}

@Suite struct GroupEventEnvelopeTests {
    let key = try! GroupEventKey(bytes: Data(repeating: 9, count: 32))
    let groupID = NostrGroupID.random()
    let now: Int64 = 1_800_000_000

    func event(tags: [Tag], kind: Kind = .groupMessage, createdAt: Int64? = nil, content: String? = nil) throws -> Event {
        let keys = Keys.generate()
        return try UnsignedEvent(
            pubkey: keys.publicKey, createdAt: createdAt ?? now, kind: kind, tags: tags,
            content: content ?? GroupEventCipher.encrypt(Data("m".utf8), key: key)
        ).signed(with: keys)
    }

    @Test func buildsMDKShapedEvent() throws {
        let first = try GroupEvent.build(mlsMessage: Data("mls".utf8), nostrGroupID: groupID, key: key, createdAt: now)
        let second = try GroupEvent.build(
            mlsMessage: Data("mls".utf8), nostrGroupID: groupID, key: key, createdAt: now, expiration: now + 60)
        #expect(first.kind == Kind(445))
        #expect(first.tags == [Tag(["h", groupID.hex]), Tag(["encoding", "base64"])])
        #expect(second.tags.last == Tag(["expiration", String(now + 60)]))
        #expect(first.pubkey != second.pubkey)
        #expect(first.isValid && second.isValid)
        let validated = try GroupEvent.validate(first, now: now)
        #expect(validated.nostrGroupID == groupID)
        #expect(try validated.decrypt(with: key) == Data("mls".utf8))
    }

    @Test func triesEpochKeysInOrder() throws {
        let old = try GroupEventKey(bytes: Data(repeating: 1, count: 32))
        let current = try GroupEventKey(bytes: Data(repeating: 2, count: 32))
        let built = try GroupEvent.build(mlsMessage: Data([1, 2, 3]), nostrGroupID: groupID, key: old, createdAt: now)
        let validated = try GroupEvent.validate(built, now: now)
        let (plaintext, index) = try validated.decrypt(tryingKeys: [current, old])
        #expect(plaintext == Data([1, 2, 3]) && index == 1)
        #expect(throws: GroupEventError.decryptionFailed) { try validated.decrypt(tryingKeys: [current]) }
    }

    @Test func acceptsWindowEdgesAndUppercaseHex() throws {
        let tags = [Tag(["h", groupID.hex.uppercased()]), Tag(["encoding", "base64"])]
        for createdAt in [now - 45 * 86400, now + 300] {
            _ = try GroupEvent.validate(try event(tags: tags, createdAt: createdAt), now: now)
        }
    }

    @Test func rejectsEnvelopeViolations() throws {
        let good = [Tag(["h", groupID.hex]), Tag(["encoding", "base64"])]
        let enc = Tag(["encoding", "base64"])
        let cases: [(Event, GroupEventError)] = [
            (try event(tags: good, kind: Kind(1)), .wrongKind(Kind(1))),
            (try event(tags: good, createdAt: now - 45 * 86400 - 1), .tooOld(createdAt: now - 45 * 86400 - 1, oldestAccepted: now - 45 * 86400)),
            (try event(tags: good, createdAt: now + 301), .tooFarInFuture(createdAt: now + 301, latestAccepted: now + 300)),
            (try event(tags: [enc]), .missingGroupTag),
            (try event(tags: good + [Tag(["h", groupID.hex])]), .multipleGroupTags(2)),
            (try event(tags: [Tag(["h", String(groupID.hex.dropLast())]), enc]), .invalidGroupTag(String(groupID.hex.dropLast()))),
            (try event(tags: [Tag(["h", String(repeating: "g", count: 64)]), enc]), .invalidGroupTag(String(repeating: "g", count: 64))),
            (try event(tags: [Tag(["h"]), enc]), .invalidGroupTag("")),
            (try event(tags: [Tag(["h", groupID.hex])]), .unsupportedEncoding),
            (try event(tags: [Tag(["h", groupID.hex]), Tag(["encoding", "BASE64"])]), .unsupportedEncoding),
        ]
        for (event, expected) in cases {
            #expect(throws: expected) { try GroupEvent.validate(event, now: now) }
        }
    }

    @Test func rejectsBadSignatureUnlessSkipped() throws {
        let built = try GroupEvent.build(mlsMessage: Data([1]), nostrGroupID: groupID, key: key, createdAt: now)
        let forged = Event(id: built.id, pubkey: Keys.generate().publicKey, createdAt: built.createdAt, kind: built.kind,
                           tags: built.tags, content: built.content, sig: built.sig)
        #expect(throws: GroupEventError.invalidEvent(.invalidID)) { try GroupEvent.validate(forged, now: now) }
        _ = try GroupEvent.validate(forged, now: now, verifySignature: false)
    }
}
