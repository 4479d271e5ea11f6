import Crypto
import Foundation
import MLS
import Nostr
import TestSupport
import Testing
@testable import MarmotWire

/// Group pictures: both versions' encryption (v1 MDK 0.8.0, v2 0x8002 MDK 0.9.14), the picture
/// checks, and a hostile blob refused before decryption.
struct GroupImageSchemeTests {
    static func png(_ size: Int = 2_000) -> Data { TestPictures.png(size) }

    static let schemes: [any GroupImageScheme] = [V1GroupImageScheme(), V2GroupImageScheme()]

    @Test(arguments: [0, 1]) func roundTripAndHashIsTheCiphertexts(_ index: Int) throws {
        let scheme = Self.schemes[index]
        let picture = Self.png()
        let sealed = try scheme.seal(picture, format: .png)
        #expect(sealed.image.blobSHA256 == Data(SHA256.hash(data: sealed.ciphertext)))
        #expect(sealed.ciphertext.startIndex == 0)
        #expect(sealed.ciphertext.count == picture.count + 16)
        #expect(try scheme.open(sealed.ciphertext, image: sealed.image) == picture)
        // Two seals of the same picture share no secret.
        let again = try scheme.seal(picture, format: .png)
        #expect(again.image.key != sealed.image.key && again.image.nonce != sealed.image.nonce)
        #expect(again.image.uploadKey != sealed.image.uploadKey)
        _ = try scheme.uploadKeys(sealed.image)
    }

    /// A blob that is not the one named is refused by its hash, before any decryption; the right
    /// blob under another key does not authenticate; an oversize blob is refused by its size.
    @Test(arguments: [0, 1]) func hostileBlobsAreRefused(_ index: Int) throws {
        let scheme = Self.schemes[index]
        let sealed = try scheme.seal(Self.png(), format: .png)
        var tampered = sealed.ciphertext
        tampered[5] ^= 1
        #expect(throws: GroupImageError.blobHashMismatch) { try scheme.open(tampered, image: sealed.image) }
        var wrongKey = sealed.image
        wrongKey.key = Data(repeating: 7, count: 32)
        #expect(throws: GroupImageError.decryptionFailed) { try scheme.open(sealed.ciphertext, image: wrongKey) }
        let huge = Data(count: scheme.maxImageBytes + 17)
        var named = sealed.image
        named.blobSHA256 = Data(SHA256.hash(data: huge))
        #expect(throws: GroupImageError.tooLarge(size: huge.count, max: scheme.maxImageBytes + 16)) {
            try scheme.open(huge, image: named)
        }
        #expect(throws: GroupImageError.tooLarge(size: scheme.maxImageBytes + 1, max: scheme.maxImageBytes)) {
            try scheme.seal(Data(count: scheme.maxImageBytes + 1), format: .png)
        }
    }

    /// v1: the key is HKDF(seed, "mip01-image-encryption-v2") with no AAD; a legacy picture whose
    /// image_key is the key itself still opens (marmot-wire §3.5).
    @Test func v1DerivesItsKeyAndReadsLegacyPictures() throws {
        let seed = Data(repeating: 0x42, count: 32)
        let nonce = Data(repeating: 0x01, count: 12)
        let picture = Self.png(100)
        let derived = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: seed), salt: Data(repeating: 0, count: 32),
            info: Data("mip01-image-encryption-v2".utf8), outputByteCount: 32)
        for key in [derived, SymmetricKey(data: seed)] {
            let box = try ChaChaPoly.seal(picture, using: key, nonce: try ChaChaPoly.Nonce(data: nonce))
            let ciphertext = Data(box.ciphertext) + box.tag
            let image = try GroupImage(
                blobSHA256: Data(SHA256.hash(data: ciphertext)), key: seed, nonce: nonce, uploadKey: Data(repeating: 3, count: 32))
            #expect(try V1GroupImageScheme().open(ciphertext, image: image) == picture)
        }
        // The upload key is HKDF(upload seed, "mip01-blossom-upload-v2") as a secret key.
        let upload = try V1GroupImageScheme().uploadKeys(
            try GroupImage(blobSHA256: Data(count: 32), key: seed, nonce: nonce, uploadKey: Data(repeating: 3, count: 32)))
        let expected = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(repeating: 3, count: 32)), info: Data("mip01-blossom-upload-v2".utf8),
            outputByteCount: 32)
        #expect(upload.secretKey.hexEncodedSecret() == Hex.encode(expected.withUnsafeBytes { Data($0) }))
    }

    /// v2: the media type is authenticated ("marmot-group-image-v1" ‖ 0 ‖ type), and the key is
    /// used as it is.
    @Test func v2BindsTheMediaType() throws {
        let sealed = try V2GroupImageScheme().seal(Self.png(), format: .png)
        #expect(sealed.image.mediaType == "image/png")
        var retyped = sealed.image
        retyped.mediaType = "image/gif"
        #expect(throws: GroupImageError.decryptionFailed) { try V2GroupImageScheme().open(sealed.ciphertext, image: retyped) }
        var aad = Data("marmot-group-image-v1".utf8)
        aad.append(0)
        aad.append(Data("image/png".utf8))
        let box = try ChaChaPoly.SealedBox(
            nonce: try ChaChaPoly.Nonce(data: sealed.image.nonce), ciphertext: sealed.ciphertext.dropLast(16),
            tag: sealed.ciphertext.suffix(16))
        #expect(try ChaChaPoly.open(box, using: SymmetricKey(data: sealed.image.key), authenticating: aad) == Self.png())
        #expect(try V2GroupImageScheme().uploadKeys(sealed.image).secretKey.hexEncodedSecret() == Hex.encode(sealed.image.uploadKey ?? Data()))
    }

    @Test func picturesAreCheckedByTheirBytes() throws {
        #expect(try GroupImageFormat.check(Self.png(), declared: nil) == .png)
        #expect(try GroupImageFormat.check(Self.png(), declared: " Image/PNG; q=1") == .png)
        #expect(try GroupImageFormat.check(Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2]), declared: "image/jpg") == .jpeg)
        #expect(try GroupImageFormat.check(Data("GIF89a....".utf8), declared: nil) == .gif)
        #expect(try GroupImageFormat.check(Data("RIFF\0\0\0\0WEBPVP8 ".utf8), declared: "image/webp") == .webp)
        #expect(throws: GroupImageError.self) { try GroupImageFormat.check(Self.png(), declared: "image/jpeg") }
        #expect(throws: GroupImageError.self) { try GroupImageFormat.check(Data("<svg/>".utf8), declared: "image/svg+xml") }
        #expect(throws: GroupImageError.self) { try GroupImageFormat.check(Data("hello".utf8), declared: nil) }
        #expect(throws: GroupImageError.empty) { try GroupImageFormat.check(Data(), declared: nil) }
    }

    @Test func printingShowsNoSecret() throws {
        let sealed = try V1GroupImageScheme().seal(Self.png(), format: .png)
        let text = "\(sealed.image)"
        #expect(!text.contains(Hex.encode(sealed.image.key)) && !text.contains(Hex.encode(sealed.image.uploadKey ?? Data())))
    }
}
