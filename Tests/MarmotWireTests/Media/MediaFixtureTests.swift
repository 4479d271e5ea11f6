import Foundation
import Nostr
import Testing
@testable import MarmotWire

/// The `imeta` fixtures of MDK 0.9.14 (`fixtures/encrypted-media/imeta-v2.json` and
/// `imeta-v1.json`, values copied here) and its known-answer key derivation
/// (`marmot-app/src/media/tests.rs` `encrypted_media_v2_kdf_and_aad_are_independent_from_v1`).
struct MediaFixtureTests {
    static let policy = MediaURLPolicy(ownServers: [])
    static let ab = String(repeating: "ab", count: 32), cd = String(repeating: "cd", count: 32)

    /// imeta-v2.json golden cases: name, tag, expected type, filename, dim (raw), thumbhash, locator count.
    static let goldenV2: [(name: String, tag: [String], type: String, filename: String, dim: String?, thumbhash: String?)] = [
        ("golden-image-full", [
            "imeta", "v encrypted-media-v2", "locator blossom-v1 https://media.example/\(ab).bin",
            "ciphertext_sha256 \(ab)", "plaintext_sha256 \(cd)", "nonce efefefefefefefefefefefef", "m image/jpeg",
            "filename photo.jpg", "dim 1920x1080", "thumbhash 1QcSHQRnh493V4dIh4eXh1h4kJUI",
        ], "image/jpeg", "photo.jpg", "1920x1080", "1QcSHQRnh493V4dIh4eXh1h4kJUI"),
        ("golden-audio-minimal", [
            "imeta", "v encrypted-media-v2", "locator blossom-v1 https://media.example/\(String(repeating: "12", count: 32)).bin",
            "ciphertext_sha256 \(String(repeating: "12", count: 32))", "plaintext_sha256 \(String(repeating: "34", count: 32))",
            "nonce 565656565656565656565656", "m audio/ogg", "filename voice.ogg",
        ], "audio/ogg", "voice.ogg", nil, nil),
        ("golden-multi-locator", [
            "imeta", "v encrypted-media-v2", "locator blossom-v1 https://media.example/\(ab).bin",
            "locator mirror-v9 https://mirror.example/blob", "ciphertext_sha256 \(ab)", "plaintext_sha256 \(cd)",
            "nonce efefefefefefefefefefefef", "m video/mp4", "filename clip.mp4",
        ], "video/mp4", "clip.mp4", nil, nil),
        ("golden-present-empty-dim", [
            "imeta", "v encrypted-media-v2", "locator blossom-v1 https://media.example/\(ab).bin",
            "ciphertext_sha256 \(ab)", "plaintext_sha256 \(cd)", "nonce efefefefefefefefefefefef", "m image/jpeg",
            "filename photo.jpg", "dim ",
        ], "image/jpeg", "photo.jpg", "", nil),
        ("golden-exact-space-filename", [
            "imeta", "v encrypted-media-v2", "locator blossom-v1 https://media.example/\(ab).bin",
            "ciphertext_sha256 \(ab)", "plaintext_sha256 \(cd)", "nonce efefefefefefefefefefefef", "m image/jpeg",
            "filename  ",
        ], "image/jpeg", " ", nil, nil),
    ]

    @Test func v2GoldenFixturesParseAndRenderExactly() throws {
        for golden in Self.goldenV2 {
            let reference = try V2MediaScheme().reference(imeta: golden.tag, policy: Self.policy)
            #expect(reference.tag == golden.tag, "\(golden.name) does not round-trip")
            #expect(reference.version == "encrypted-media-v2")
            #expect(reference.mimeType == golden.type)
            #expect(reference.filename == golden.filename)
            #expect(reference.thumbhash == golden.thumbhash)
            #expect(reference.dimensions == golden.dim.flatMap(MediaDimensions.init(field:)), "\(golden.name)")
            #expect(reference.blobSHA256 == reference.ciphertextSHA256)
            #expect(reference.url.absoluteString.hasPrefix("https://media.example/"))
            #expect(reference.nonce.count == 12 && reference.plaintextSHA256.count == 32)
        }
        let full = try V2MediaScheme().reference(imeta: Self.goldenV2[0].tag, policy: Self.policy)
        #expect(full.dimensions == MediaDimensions(width: 1920, height: 1080))
        #expect(full.blobSHA256 == Data(repeating: 0xab, count: 32))
        #expect(full.plaintextSHA256 == Data(repeating: 0xcd, count: 32))
        #expect(full.nonce == Data(repeating: 0xef, count: 12))
        #expect(V2MediaScheme().messageTags([full]) == [Self.goldenV2[0].tag])
    }

    @Test func v2RejectionFixturesAreRefused() {
        let base = [
            "imeta", "v encrypted-media-v2", "locator blossom-v1 https://media.example/\(Self.ab).bin",
            "ciphertext_sha256 \(Self.ab)", "plaintext_sha256 \(Self.cd)", "nonce efefefefefefefefefefefef",
        ]
        let cases: [(String, [String], MediaError)] = [
            ("rejects-noncanonical-media-type", base + ["m Image/JPG", "filename photo.jpg"],
             .invalidMediaType("Image/JPG is not canonical")),
            ("rejects-overlong-filename", base + ["m image/jpeg", "filename " + String(repeating: "a", count: 256)],
             .invalidFilename("must be 1…255 UTF-8 bytes without NUL")),
            ("rejects-nul-in-filename", base + ["m image/jpeg", "filename bad\u{0}name.jpg"],
             .invalidFilename("must be 1…255 UTF-8 bytes without NUL")),
            ("rejects-duplicate-plaintext-hash",
             base + ["m image/jpeg", "filename photo.jpg", "plaintext_sha256 \(String(repeating: "34", count: 32))"],
             .duplicateField("plaintext_sha256")),
            ("rejects-missing-version", base.filter { !$0.hasPrefix("v ") } + ["m image/jpeg", "filename photo.jpg"],
             .missingField("v")),
        ]
        for (name, tag, expected) in cases {
            #expect(throws: expected, "\(name)") { try V2MediaScheme().reference(imeta: tag, policy: Self.policy) }
        }
    }

    /// imeta-v1.json is MDK 0.9.14's frozen `encrypted-media-v1` (component 0x8008), not MDK 0.8.0's
    /// MIP-04 `mip04-v2`: neither scheme reads it (our v2 groups require 0x800b, and 0x8008 is not
    /// a component we support).
    @Test func frozenEncryptedMediaV1FixtureIsReadByNeitherScheme() {
        let ones = String(repeating: "11", count: 32)
        let golden = [
            "imeta", "v encrypted-media-v1", "locator blossom-v1 https://media.example/\(ones).bin",
            "ciphertext_sha256 \(ones)", "plaintext_sha256 \(String(repeating: "22", count: 32))",
            "nonce 333333333333333333333333", "m image/png", "filename diagram.png", "dim 800x600",
            "thumbhash 1QcSHQRnh493V4dIh4eXh1h4kJUI",
        ]
        #expect(throws: MediaError.unsupportedVersion("encrypted-media-v1")) {
            try V2MediaScheme().reference(imeta: golden, policy: Self.policy)
        }
        #expect(throws: MediaError.missingField("url")) { try V1MediaScheme().reference(imeta: golden, policy: Self.policy) }
    }

    /// MDK 0.9.14's known answer: secret 07×32, hash 22×32, `image/jpeg`, filename ` Photo.JPG `.
    @Test func v2KeyAndAssociatedDataMatchMDK() throws {
        let secret = MediaSecret(bytes: Data(repeating: 7, count: 32))
        let hash = Data(repeating: 0x22, count: 32)
        let key = try MediaCipher.key(secret: secret, label: V2MediaScheme().version, plaintextSHA256: hash, mimeType: "image/jpeg", filename: " Photo.JPG ")
        #expect(key.withUnsafeBytes { Hex.encode($0) } == "5fcb5672b9cb2b3ac7915fd9c97697877837f7fb1312034486f400f601cd16b5")
        let aad = MediaCipher.context(label: V2MediaScheme().version, plaintextSHA256: hash, mimeType: "image/jpeg", filename: " Photo.JPG ")
        #expect(Hex.encode(aad) == "656e637279707465642d6d656469612d763200222222222222222222222222222222222222222222222222222222222222222200696d6167652f6a706567002050686f746f2e4a504720")
        let v1 = try MediaCipher.key(secret: secret, label: V1MediaScheme().version, plaintextSHA256: hash, mimeType: "image/jpeg", filename: " Photo.JPG ")
        #expect(v1 != key)
    }

    /// Known answers computed independently (Python `cryptography`: HKDFExpand, ChaCha20Poly1305),
    /// the same code that reproduces MDK's v2 key above: secret 11×32 / 42×32, nonce 24×12.
    @Test func ciphertextsMatchAnIndependentImplementation() throws {
        let v1Key = try MediaCipher.key(
            secret: MediaSecret(bytes: Data(repeating: 0x11, count: 32)), label: "mip04-v2",
            plaintextSHA256: Data(repeating: 0x22, count: 32), mimeType: "image/jpeg", filename: "photo.jpg")
        #expect(v1Key.withUnsafeBytes { Hex.encode($0) } == "e96c94b2b5021079dd4d337dc038b59d64884beb386748efbfa65b23acb4ebac")

        let plaintext = Data("Hello, encrypted world!".utf8)
        let secret = MediaSecret(bytes: Data(repeating: 0x42, count: 32))
        let nonce = Data(repeating: 0x24, count: 12)
        let expected: [(scheme: any MediaScheme, ciphertext: String, blob: String)] = [
            (V1MediaScheme(), "7fa440bf77911f3364bf1be39ce36fa6fd0fbee64015e81b675b353d1e506f38b177b413175e6d",
             "3a10df0dc38334d54b548e0a90313c3e72a3d2a210b3da7d2aed4abfe5157439"),
            (V2MediaScheme(), "82ed5703efa4f7ef9ffe52ba393c46f45136a73d3c8b0c7fd9c3c6b8af3ffcf1e9c83272f78399",
             "8496973a696b16556dcd2f94e2c23286fcee3d1db92bb8ca94e6b6b0a811042d"),
        ]
        let hash = MediaCipher.sha256(plaintext)
        #expect(Hex.encode(hash) == "d475b03ce407103c76fe2fb41a94f10ab133de8ab62c5fd22aa72cc4d4106ce8")
        for (scheme, ciphertextHex, blobHex) in expected {
            let key = try MediaCipher.key(secret: secret, label: scheme.version, plaintextSHA256: hash, mimeType: "image/png", filename: "a.png")
            let aad = MediaCipher.context(label: scheme.version, plaintextSHA256: hash, mimeType: "image/png", filename: "a.png")
            let sealed = try MediaCipher.seal(plaintext, key: key, nonce: nonce, aad: aad)
            #expect(Hex.encode(sealed) == ciphertextHex)
            #expect(Hex.encode(MediaCipher.sha256(sealed)) == blobHex)
            // And the scheme decrypts it from a tag as each version writes it.
            let tag = scheme.version == "mip04-v2"
                ? ["imeta", "url https://blossom.example/\(blobHex)", "m image/png", "filename a.png", "x \(Hex.encode(hash))",
                   "n \(Hex.encode(nonce))", "v mip04-v2"]
                : ["imeta", "v encrypted-media-v2", "locator blossom-v1 https://blossom.example/\(blobHex)",
                   "ciphertext_sha256 \(blobHex)", "plaintext_sha256 \(Hex.encode(hash))", "nonce \(Hex.encode(nonce))",
                   "m image/png", "filename a.png"]
            let reference = try scheme.reference(imeta: tag, policy: Self.policy)
            #expect(reference.tag == tag)
            #expect(try scheme.decrypt(sealed, reference: reference, secret: secret) == plaintext)
        }
    }
}
