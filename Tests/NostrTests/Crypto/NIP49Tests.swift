import Foundation
import Testing
@testable import Nostr

@Suite("NIP-49")
struct NIP49Tests {
    /// The decryption vector of NIP-49 ("Test Data", "Decryption"): password "nostr", log_n 16.
    static let vector = "ncryptsec1qgg9947rlpvqu76pj5ecreduf9jxhselq2nae2kghhvd5g7dgjtcxfqtd67p9m0w57lspw8gsq6yphnm8623nsl8xn9j4jdzz84zm3frztj3z7s35vpzmqf6ksu8r89qk5z2zxfmu5gv8th8wclt0h4p"
    static let vectorKey = "3501454135014541350145413501453fefb02227e449e57cf4d3a3ce05378683"

    /// The vector's payload with one byte replaced, re-encoded with a valid checksum.
    static func vector(replacing index: Int, with byte: UInt8) throws -> String {
        var data = try Bech32.decode(vector).data
        data[index] = byte
        return Bech32.encode(hrp: "ncryptsec", data: data)
    }

    @Test func specVectorDecryptsAndReEncrypts() throws {
        let key = try NIP49.decrypt(Self.vector, password: "nostr")
        #expect(key.hexEncodedSecret() == Self.vectorKey)

        // With the vector's own salt, nonce and key security byte, encryption gives the vector back.
        let data = try Bech32.decode(Self.vector).data
        #expect(data.count == 91 && data[0] == 2 && data[1] == 16)
        let security = try #require(NIP49.KeySecurity(rawValue: data[42]))
        let again = try NIP49.encrypt(
            secretKey: key, password: "nostr", logN: 16, keySecurity: security,
            salt: Array(data[2..<18]), nonce: Array(data[18..<42]))
        #expect(again == Self.vector)
    }

    @Test func roundTripWithFreshSaltAndNonce() throws {
        let key = SecretKey.generate()
        let one = try NIP49.encrypt(secretKey: key, password: "correct horse", logN: 12)
        let two = try NIP49.encrypt(secretKey: key, password: "correct horse", logN: 12)
        #expect(one != two)
        #expect(one.hasPrefix("ncryptsec1") && NIP49.isNcryptsec(one) && !NIP49.isNcryptsec(key.nsecEncoded()))
        #expect(try NIP49.decrypt(one, password: "correct horse") == key)
        #expect(try NIP49.decrypt(two.uppercased(), password: "correct horse") == key)
        let data = try Bech32.decode(one).data
        #expect(data.count == 91 && data[1] == 12 && data[42] == NIP49.KeySecurity.unknown.rawValue)
    }

    @Test func wrongPasswordIsRefused() throws {
        #expect(throws: NIP49Error.wrongPasswordOrDamaged) { try NIP49.decrypt(Self.vector, password: "nostR") }
        #expect(NIP49Error.wrongPasswordOrDamaged.description.contains("wrong password or damaged ncryptsec"))
    }

    @Test func tamperedPayloadIsRefused() throws {
        let data = try Bech32.decode(Self.vector).data
        // A ciphertext byte, and the key security byte (authenticated as associated data).
        #expect(throws: NIP49Error.wrongPasswordOrDamaged) {
            try NIP49.decrypt(try Self.vector(replacing: 60, with: data[60] ^ 1), password: "nostr")
        }
        #expect(throws: NIP49Error.wrongPasswordOrDamaged) {
            try NIP49.decrypt(try Self.vector(replacing: 42, with: data[42] == 1 ? 2 : 1), password: "nostr")
        }
        // A broken bech32 checksum.
        var chars = Array(Self.vector)
        chars[chars.count - 1] = chars.last == "q" ? "p" : "q"
        #expect(throws: NIP49Error.invalidEncoding(.invalidChecksum)) { try NIP49.decrypt(String(chars), password: "nostr") }
    }

    @Test func malformedHeadersAreRefusedBeforeScrypt() throws {
        #expect(throws: NIP49Error.unsupportedVersion(1)) { try NIP49.decrypt(try Self.vector(replacing: 0, with: 1), password: "nostr") }
        #expect(throws: NIP49Error.unknownKeySecurity(7)) { try NIP49.decrypt(try Self.vector(replacing: 42, with: 7), password: "nostr") }
        let nsec = SecretKey.generate().nsecEncoded()
        #expect(throws: NIP49Error.wrongPrefix("nsec")) { try NIP49.decrypt(nsec, password: "nostr") }
        let short = Bech32.encode(hrp: "ncryptsec", data: Array(try Bech32.decode(Self.vector).data.prefix(90)))
        #expect(throws: NIP49Error.invalidLength(90)) { try NIP49.decrypt(short, password: "nostr") }
    }

    /// log_n 30 would be 1 TiB of scrypt memory: refused at once, before any key derivation.
    @Test func hugeLogNIsRefusedWithoutDerivation() throws {
        let start = ContinuousClock.now
        #expect(throws: NIP49Error.logNOutOfRange(30)) { try NIP49.decrypt(try Self.vector(replacing: 1, with: 30), password: "nostr") }
        #expect(throws: NIP49Error.logNOutOfRange(23)) { try NIP49.decrypt(try Self.vector(replacing: 1, with: 23), password: "nostr") }
        #expect(throws: NIP49Error.logNOutOfRange(0)) { try NIP49.decrypt(try Self.vector(replacing: 1, with: 0), password: "nostr") }
        #expect(throws: NIP49Error.logNOutOfRange(23)) {
            try NIP49.encrypt(secretKey: SecretKey.generate(), password: "x", logN: 23)
        }
        #expect(ContinuousClock.now - start < .seconds(5))  // log_n 30 would run for hours
        #expect(NIP49Error.logNOutOfRange(30).description.contains("4 GiB"))
    }

    @Test func emptyPasswordIsRefused() throws {
        #expect(throws: NIP49Error.emptyPassword) { try NIP49.encrypt(secretKey: SecretKey.generate(), password: "", logN: 12) }
        #expect(throws: NIP49Error.emptyPassword) { try NIP49.decrypt(Self.vector, password: "") }
    }

    /// NIP-49 "Password Unicode Normalization": U+212B U+2126 U+1E9B U+0323 becomes U+00C5 U+03A9 U+1E69.
    @Test func passwordIsNFKCNormalized() throws {
        let typed = "\u{212B}\u{2126}\u{1E9B}\u{0323}"
        #expect(Array(typed.utf8) == [0xE2, 0x84, 0xAB, 0xE2, 0x84, 0xA6, 0xE1, 0xBA, 0x9B, 0xCC, 0xA3])
        #expect(NIP49.normalizedPassword(typed) == [0xC3, 0x85, 0xCE, 0xA9, 0xE1, 0xB9, 0xA9])
        let key = SecretKey.generate()
        let sealed = try NIP49.encrypt(secretKey: key, password: typed, logN: 12)
        #expect(try NIP49.decrypt(sealed, password: "\u{00C5}\u{03A9}\u{1E69}") == key)
    }
}
