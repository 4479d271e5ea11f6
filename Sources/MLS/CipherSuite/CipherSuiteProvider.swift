import Crypto
import Foundation

/// The primitives of one MLS cipher suite (RFC 9420 §5.1, §8): hash, KDF, MAC, AEAD, signature and
/// HPKE, plus the labelled constructions MLS builds on them.
///
/// Only MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519 (0x0001, the suite of MIP-00) is implemented:
/// SHA-256, HKDF-SHA256, HMAC-SHA256, AES-128-GCM, Ed25519 and DHKEM(X25519, HKDF-SHA256).
/// Values are plain bytes so the group layer can store and serialize them; secret-holding
/// containers above this layer are the ones that redact.
public struct CipherSuiteProvider: Sendable, Hashable {
    /// The suite this provider implements.
    public let suite: CipherSuite

    /// Provider for the suite, or `.unsupportedCipherSuite`.
    public init(_ suite: CipherSuite) throws(MLSCryptoError) {
        guard suite == .mls128X25519AES128GCMSHA256Ed25519 else { throw .unsupportedCipherSuite(suite) }
        self.suite = suite
    }

    /// The provider for suite 0x0001.
    public static let mls128X25519 = CipherSuiteProvider(uncheckedSuite: .mls128X25519AES128GCMSHA256Ed25519)

    private init(uncheckedSuite: CipherSuite) { suite = uncheckedSuite }

    /// KDF.Nh: the hash and extract output size.
    public var hashLength: Int { 32 }
    /// AEAD.Nk: the AEAD key size.
    public var aeadKeyLength: Int { 16 }
    /// AEAD.Nn: the AEAD nonce size.
    public var aeadNonceLength: Int { 12 }
    /// KEM.Npk: the size of an HPKE public key (X25519: 32 bytes), which encryption_key and init_key
    /// must have (RFC 9420 §5.1.1, RFC 9180 §7.1).
    public var hpkePublicKeyLength: Int { 32 }
    /// The AEAD tag appended to every ciphertext.
    public var aeadTagLength: Int { 16 }
    /// The label prefix of every labelled construction (RFC 9420 §5.1.2, §5.1.3, §8).
    public static let labelPrefix = "MLS 1.0 "

    /// The largest KDF.Expand output: 255·Nh, also capped by KDFLabel's `uint16 length`.
    public var maxExpandLength: Int { min(255 * hashLength, Int(UInt16.max)) }

    // MARK: Hash and references

    /// Hash (SHA-256).
    public func hash<D: DataProtocol>(_ data: D) -> Data { Data(SHA256.hash(data: data)) }

    /// RefHash(label, value) = Hash(RefHashInput{label<V>, value<V>}) (RFC 9420 §5.2). The label is used
    /// as given, without the "MLS 1.0 " prefix, because the reference labels already spell it out.
    public func refHash<D: DataProtocol>(label: String, value: D) -> Data {
        var writer = TLSWriter()
        writer.writeOpaque(Data(label.utf8))
        writer.writeOpaque(value)
        return hash(writer.bytes)
    }

    // MARK: KDF

    /// KDF.Extract(salt, ikm) (HKDF-Extract, RFC 5869); an empty salt means Nh zero bytes.
    public func extract<S: DataProtocol, I: DataProtocol>(salt: S, ikm: I) -> Data {
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: SymmetricKey(data: Data(ikm)), salt: Data(salt))
        return Data(prk)
    }

    /// KDF.Expand(prk, info, length) (HKDF-Expand, RFC 5869).
    public func expand<P: DataProtocol, I: DataProtocol>(prk: P, info: I, length: Int) throws(MLSCryptoError) -> Data {
        guard length >= 0, length <= 255 * hashLength else { throw .invalidOutputLength(length) }
        return expandUnchecked(prk: prk, info: info, length: length)
    }

    func expandUnchecked<P: DataProtocol, I: DataProtocol>(prk: P, info: I, length: Int) -> Data {
        guard length > 0 else { return Data() }
        return HKDFExpand.sha256(prk: prk, info: info, length: length)
    }

    /// ExpandWithLabel(secret, label, context, length) = KDF.Expand(secret, KDFLabel, length), with
    /// KDFLabel{uint16 length; label<V> = "MLS 1.0 " + label; context<V>} (RFC 9420 §8).
    public func expandWithLabel<S: DataProtocol, C: DataProtocol>(
        secret: S, label: String, context: C, length: Int
    ) throws(MLSCryptoError) -> Data {
        guard length >= 0, length <= maxExpandLength else { throw .invalidOutputLength(length) }
        return expandWithLabelUnchecked(secret: secret, label: label, context: context, length: length)
    }

    /// ExpandWithLabel for lengths fixed by the suite (Nh, Nk, Nn), which are always in range.
    func expandWithLabelUnchecked<S: DataProtocol, C: DataProtocol>(
        secret: S, label: String, context: C, length: Int
    ) -> Data {
        var info = TLSWriter()
        info.write(UInt16(length))
        info.writeOpaque(Data((Self.labelPrefix + label).utf8))
        info.writeOpaque(context)
        return expandUnchecked(prk: secret, info: info.bytes, length: length)
    }

    /// DeriveSecret(secret, label) = ExpandWithLabel(secret, label, "", Nh) (RFC 9420 §8).
    public func deriveSecret<S: DataProtocol>(secret: S, label: String) -> Data {
        expandWithLabelUnchecked(secret: secret, label: label, context: Data(), length: hashLength)
    }

    /// DeriveTreeSecret(secret, label, generation, length): ExpandWithLabel with the generation as a
    /// big-endian uint32 context (RFC 9420 §9.1).
    public func deriveTreeSecret<S: DataProtocol>(
        secret: S, label: String, generation: UInt32, length: Int
    ) throws(MLSCryptoError) -> Data {
        var context = TLSWriter(capacity: 4)
        context.write(generation)
        return try expandWithLabel(secret: secret, label: label, context: context.bytes, length: length)
    }

    func deriveTreeSecretUnchecked<S: DataProtocol>(secret: S, label: String, generation: UInt32, length: Int) -> Data {
        var context = TLSWriter(capacity: 4)
        context.write(generation)
        return expandWithLabelUnchecked(secret: secret, label: label, context: context.bytes, length: length)
    }

    /// Nh zero bytes: the "0" of the key schedule diagrams (RFC 9420 §8, §8.4).
    public var zeroSecret: Data { Data(repeating: 0, count: hashLength) }

    // MARK: MAC

    /// MAC(key, data) (HMAC-SHA256), used for membership and confirmation tags (RFC 9420 §6.2, §8.2).
    public func mac<K: DataProtocol, D: DataProtocol>(key: K, data: D) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: Data(key))))
    }

    /// Checks a MAC in constant time.
    public func verifyMAC<K: DataProtocol, D: DataProtocol, T: DataProtocol>(key: K, data: D, tag: T) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(Data(tag), authenticating: data, using: SymmetricKey(data: Data(key)))
    }

    // MARK: AEAD

    /// AEAD.Seal (AES-128-GCM): returns ciphertext ‖ tag, as RFC 9420 §5.1 expects one output.
    public func seal<P: DataProtocol, A: DataProtocol>(
        key: Data, nonce: Data, aad: A, plaintext: P
    ) throws(MLSCryptoError) -> Data {
        let (key, nonce) = try aeadInputs(key: key, nonce: nonce)
        do {
            let box = try AES.GCM.seal(plaintext, using: key, nonce: nonce, authenticating: aad)
            // A fresh zero-based buffer: the box's fields are slices of one allocation.
            var output = Data(capacity: box.ciphertext.count + aeadTagLength)
            output.append(contentsOf: box.ciphertext)
            output.append(contentsOf: box.tag)
            return output
        } catch {
            throw .primitiveFailed("AES-GCM seal: \(error)")
        }
    }

    /// AEAD.Open (AES-128-GCM) of ciphertext ‖ tag; `.decryptionFailed` when it does not authenticate.
    public func open<C: DataProtocol, A: DataProtocol>(
        key: Data, nonce: Data, aad: A, ciphertext: C
    ) throws(MLSCryptoError) -> Data {
        let (key, nonce) = try aeadInputs(key: key, nonce: nonce)
        let bytes = Data(ciphertext)
        guard bytes.count >= aeadTagLength else { throw .decryptionFailed }
        do {
            let box = try AES.GCM.SealedBox(
                nonce: nonce, ciphertext: bytes.prefix(bytes.count - aeadTagLength), tag: bytes.suffix(aeadTagLength))
            return try AES.GCM.open(box, using: key, authenticating: aad).zeroBased
        } catch {
            throw .decryptionFailed
        }
    }

    private func aeadInputs(key: Data, nonce: Data) throws(MLSCryptoError) -> (SymmetricKey, AES.GCM.Nonce) {
        guard key.count == aeadKeyLength else {
            throw .invalidLength(what: "AEAD key", expected: aeadKeyLength, actual: key.count)
        }
        guard nonce.count == aeadNonceLength, let gcmNonce = try? AES.GCM.Nonce(data: nonce) else {
            throw .invalidLength(what: "AEAD nonce", expected: aeadNonceLength, actual: nonce.count)
        }
        return (SymmetricKey(data: key), gcmNonce)
    }

    // MARK: Randomness

    /// `count` bytes from the system CSPRNG (psk_nonce, reuse_guard, path secrets, …).
    public func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<max(0, count)).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}

extension Data {
    /// The same bytes indexed from zero: swift-crypto hands out slices (e.g. HPKE ciphertexts) whose
    /// indices start elsewhere, which callers indexing from 0 would trip over.
    var zeroBased: Data { startIndex == 0 ? self : withUnsafeBytes { Data($0) } }
}
