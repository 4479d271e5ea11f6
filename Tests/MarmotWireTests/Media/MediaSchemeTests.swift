import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot
@testable import MarmotWire

/// Encryption and decryption of both versions under real MLS epoch secrets: round trips, and each
/// way a blob can be wrong giving its own clear error.
struct MediaSchemeTests {
    static let schemes: [any MediaScheme] = [V1MediaScheme(), V2MediaScheme()]
    static let policy = MediaURLPolicy(ownServers: [])

    /// A one-member group of `version` at epoch 0, and the same group one commit later.
    static func epochs(_ version: MarmotVersion) throws -> (MLSGroup, MLSGroup) {
        let keys = Keys.generate()
        let metadata = GroupMetadata(
            nostrGroupID: NostrGroupID.random(), name: "media", description: "", admins: [keys.publicKey],
            relays: [try RelayURL("wss://relay.example")])
        var group = try version.rules.foundingState(
            groupID: GroupID(Data((0..<32).map { _ in UInt8.random(in: 0...255) })), keys: keys, metadata: metadata, invitees: [])
        let first = group
        let next = try group.commit(forceUpdatePath: true).newGroup
        #expect(next.epoch == first.epoch + 1)
        return (first, next)
    }

    static func upload(_ encrypted: EncryptedMedia) -> URL {
        URL(string: "https://blossom.example/\(Hex.encode(encrypted.ciphertextSHA256)).bin")!
    }

    /// Sent, received through the rendered tag, decrypted: the same bytes, for each version.
    @Test(arguments: [MarmotVersion.v1, .v2])
    func roundTripThroughTheTag(version: MarmotVersion) throws {
        let scheme = version.rules.media
        let (group, _) = try Self.epochs(version)
        let secret = try scheme.secret(of: group)
        #expect(secret.bytes.count == 32)
        #expect(secret.description == "MediaSecret(redacted)")
        // A PNG signature first: v1 refuses to send an image whose bytes are another type, as MDK 0.8.0 does.
        let file = Data([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) + Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let encrypted = try scheme.encrypt(
            file, mimeType: " Image/PNG; charset=x ", filename: "holiday.png", dimensions: MediaDimensions(width: 640, height: 480),
            secret: secret)
        #expect(encrypted.ciphertext.count == file.count + 16)
        #expect(encrypted.ciphertextSHA256 == MediaCipher.sha256(encrypted.ciphertext))
        let sent = encrypted.reference(url: Self.upload(encrypted))
        #expect(sent.mimeType == "image/png")
        #expect(sent.version == scheme.version)
        #expect(sent.blobSHA256 == encrypted.ciphertextSHA256)
        #expect(scheme.messageKind == 9)
        let tags = scheme.messageTags([sent])
        #expect(tags == [sent.tag])

        let received = try scheme.reference(imeta: tags[0], policy: Self.policy)
        #expect(received == sent)
        #expect(received.dimensions == MediaDimensions(width: 640, height: 480))
        #expect(try scheme.decrypt(encrypted.ciphertext, reference: received, secret: scheme.secret(of: group)) == file)

        // Two encryptions of one file never share a nonce (MIP-04 v2: random nonces).
        let again = try scheme.encrypt(file, mimeType: "image/png", filename: "holiday.png", dimensions: nil, secret: secret)
        #expect(again.reference(url: Self.upload(again)).nonce != sent.nonce)
        #expect(again.ciphertext != encrypted.ciphertext)
    }

    @Test(arguments: [MarmotVersion.v1, .v2])
    func everyWrongInputHasItsOwnError(version: MarmotVersion) throws {
        let scheme = version.rules.media
        let (group, later) = try Self.epochs(version)
        let secret = try scheme.secret(of: group)
        let file = Data("a small pdf".utf8)
        let encrypted = try scheme.encrypt(file, mimeType: "application/pdf", filename: "brief.pdf", dimensions: nil, secret: secret)
        let reference = encrypted.reference(url: Self.upload(encrypted))

        // The next epoch's secret (a member who decrypts with its current epoch instead of the sender's).
        let laterSecret = try scheme.secret(of: later)
        #expect(laterSecret != secret)
        #expect(throws: MediaError.decryptionFailed) { try scheme.decrypt(encrypted.ciphertext, reference: reference, secret: laterSecret) }
        // Another group's secret.
        let (stranger, _) = try Self.epochs(version)
        #expect(throws: MediaError.decryptionFailed) {
            try scheme.decrypt(encrypted.ciphertext, reference: reference, secret: scheme.secret(of: stranger))
        }
        // A blob whose bytes were changed: its hash is not the one the reference names, refused before decryption.
        var tampered = encrypted.ciphertext
        tampered[3] ^= 0x01
        #expect(throws: MediaError.blobHashMismatch) { try scheme.decrypt(tampered, reference: reference, secret: secret) }
        // Another blob entirely.
        let other = try scheme.encrypt(Data("other".utf8), mimeType: "application/pdf", filename: "brief.pdf", dimensions: nil, secret: secret)
        #expect(throws: MediaError.blobHashMismatch) { try scheme.decrypt(other.ciphertext, reference: reference, secret: secret) }
        // Authenticated metadata changed in the tag (another filename): the AEAD refuses.
        let renamed = reference.tag.map { $0 == "filename brief.pdf" ? "filename invoice.pdf" : $0 }
        let lying = try scheme.reference(imeta: renamed, policy: Self.policy)
        #expect(throws: MediaError.decryptionFailed) { try scheme.decrypt(encrypted.ciphertext, reference: lying, secret: secret) }
        // A reference of the other version.
        let otherScheme: any MediaScheme = version == .v1 ? V2MediaScheme() : V1MediaScheme()
        let foreign = try otherScheme.encrypt(file, mimeType: "application/pdf", filename: "brief.pdf", dimensions: nil, secret: secret)
        #expect(throws: MediaError.wrongScheme(expected: scheme.version, actual: otherScheme.version)) {
            try scheme.decrypt(foreign.ciphertext, reference: foreign.reference(url: Self.upload(foreign)), secret: secret)
        }
        // A secret that is not 32 bytes.
        #expect(throws: MediaError.invalidSecretLength(16)) {
            try scheme.encrypt(file, mimeType: "application/pdf", filename: "brief.pdf", dimensions: nil, secret: MediaSecret(bytes: Data(count: 16)))
        }
        #expect(throws: MediaError.emptyFile) {
            try scheme.encrypt(Data(), mimeType: "application/pdf", filename: "brief.pdf", dimensions: nil, secret: secret)
        }
        // Over the version's limit: refused before anything is hashed or sealed.
        let huge = Data(count: scheme.maxPlaintextBytes + 1)
        #expect(throws: MediaError.tooLarge(size: scheme.maxPlaintextBytes + 1, max: scheme.maxPlaintextBytes)) {
            try scheme.encrypt(huge, mimeType: "application/pdf", filename: "brief.pdf", dimensions: nil, secret: secret)
        }
        // Bad names and types are refused on the way out too.
        #expect(throws: MediaError.self) {
            try scheme.encrypt(file, mimeType: "application/pdf", filename: "", dimensions: nil, secret: secret)
        }
        #expect(throws: MediaError.self) {
            try scheme.encrypt(file, mimeType: "no-slash", filename: "brief.pdf", dimensions: nil, secret: secret)
        }
    }

    /// The tampered plaintext hash: a reference whose `x` / `plaintext_sha256` is another file's,
    /// over a blob that otherwise matches, fails authentication (the hash is in the key and AAD).
    @Test(arguments: [MarmotVersion.v1, .v2])
    func aLyingPlaintextHashDoesNotDecrypt(version: MarmotVersion) throws {
        let scheme = version.rules.media
        let secret = try scheme.secret(of: Self.epochs(version).0)
        let encrypted = try scheme.encrypt(Data("real".utf8), mimeType: "text/plain", filename: "a.txt", dimensions: nil, secret: secret)
        let reference = encrypted.reference(url: Self.upload(encrypted))
        let real = Hex.encode(reference.plaintextSHA256), fake = String(repeating: "00", count: 32)
        let lying = try scheme.reference(imeta: reference.tag.map { $0.replacingOccurrences(of: real, with: fake) }, policy: Self.policy)
        #expect(throws: MediaError.decryptionFailed) { try scheme.decrypt(encrypted.ciphertext, reference: lying, secret: secret) }
    }

    @Test func versionsDifferWhereTheReferencesDo() throws {
        let v1 = V1MediaScheme(), v2 = V2MediaScheme()
        #expect(V1GroupRules().media.version == "mip04-v2")
        #expect(V2GroupRules().media.version == "encrypted-media-v2")
        // v1 has no aliases (MDK 0.8.0's allow-list), v2 reads image/jpg as image/jpeg.
        #expect(throws: MediaError.self) { try V1MediaScheme.canonicalMediaType("image/jpg") }
        #expect(try V2MediaScheme.canonicalMediaType("image/jpg") == "image/jpeg")
        // v1 allows only MDK 0.8.0's list; v2 any well-formed type.
        #expect(throws: MediaError.self) { try V1MediaScheme.canonicalMediaType("application/zip") }
        #expect(try V2MediaScheme.canonicalMediaType("Application/Zip; x=1") == "application/zip")
        // v1 checks that an image's bytes are the type it is sent as (MDK 0.8.0); v2 does not.
        let secret = MediaSecret(bytes: Data(repeating: 1, count: 32))
        let jpeg = Data([0xff, 0xd8, 0xff, 0xe0]) + Data(repeating: 7, count: 100)
        #expect(V1MediaScheme.imageType(of: jpeg) == "image/jpeg")
        #expect(throws: MediaError.invalidMediaType("the file is image/jpeg, not image/png")) {
            try v1.encrypt(jpeg, mimeType: "image/png", filename: "a.png", dimensions: nil, secret: secret)
        }
        #expect(throws: MediaError.invalidMediaType("the file is not a known image, not image/gif")) {
            try v1.encrypt(Data("GIF? no".utf8), mimeType: "image/gif", filename: "a.gif", dimensions: nil, secret: secret)
        }
        #expect(throws: Never.self) { try v1.encrypt(jpeg, mimeType: "image/jpeg", filename: "a.jpg", dimensions: nil, secret: secret) }
        #expect(throws: Never.self) { try v2.encrypt(jpeg, mimeType: "image/png", filename: "a.png", dimensions: nil, secret: secret) }
        #expect(v1.maxPlaintextBytes == 100 * 1024 * 1024)
        #expect(v2.maxPlaintextBytes == 512 * 1024 * 1024 - 16)
    }
}
