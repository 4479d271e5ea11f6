import Crypto
import Foundation

extension CipherSuiteProvider {
    /// The HPKE suite inside MLS suite 0x0001: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-128-GCM.
    static let hpkeSuite = HPKE.Ciphersuite(kem: .Curve25519_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_128)

    /// EncryptContext{label<V> = "MLS 1.0 " + label; context<V>} (RFC 9420 §5.1.3).
    func encryptContext<C: DataProtocol>(label: String, context: C) -> Data {
        var writer = TLSWriter()
        writer.writeOpaque(Data((Self.labelPrefix + label).utf8))
        writer.writeOpaque(context)
        return writer.data
    }

    /// EncryptWithLabel(pub, label, context, plaintext) = SealBase(pub, EncryptContext, "", plaintext)
    /// (RFC 9420 §5.1.3). Returns the HPKECiphertext fields.
    public func encryptWithLabel<C: DataProtocol, P: DataProtocol>(
        _ publicKey: HPKEPublicKey, label: String, context: C, plaintext: P
    ) throws(MLSCryptoError) -> (kemOutput: Data, ciphertext: Data) {
        let recipient = try x25519PublicKey(publicKey)
        do {
            var sender = try HPKE.Sender(
                recipientKey: recipient, ciphersuite: Self.hpkeSuite, info: encryptContext(label: label, context: context))
            let ciphertext = try sender.seal(plaintext, authenticating: Data())
            return (sender.encapsulatedKey.zeroBased, ciphertext.zeroBased)
        } catch {
            throw .primitiveFailed("HPKE seal: \(error)")
        }
    }

    /// DecryptWithLabel(priv, label, context, kem_output, ciphertext) =
    /// OpenBase(kem_output, priv, EncryptContext, "", ciphertext) (RFC 9420 §5.1.3).
    public func decryptWithLabel<C: DataProtocol, K: DataProtocol, E: DataProtocol>(
        _ privateKey: HPKEPrivateKey, label: String, context: C, kemOutput: K, ciphertext: E
    ) throws(MLSCryptoError) -> Data {
        do {
            var recipient = try HPKE.Recipient(
                privateKey: privateKey.key, ciphersuite: Self.hpkeSuite,
                info: encryptContext(label: label, context: context), encapsulatedKey: Data(kemOutput))
            return try recipient.open(ciphertext, authenticating: Data()).zeroBased
        } catch {
            throw .decryptionFailed
        }
    }

    /// SetupBaseS(pub, info) then Export(exporterContext, length) (RFC 9180 §5.1, §5.3): the sender
    /// side of MLS external initialization (RFC 9420 §8.3).
    public func hpkeSenderExport<I: DataProtocol, X: DataProtocol>(
        _ publicKey: HPKEPublicKey, info: I, exporterContext: X, length: Int
    ) throws(MLSCryptoError) -> (kemOutput: Data, secret: Data) {
        guard length >= 0, length <= 255 * hashLength else { throw .invalidOutputLength(length) }
        let recipient = try x25519PublicKey(publicKey)
        do {
            let sender = try HPKE.Sender(recipientKey: recipient, ciphersuite: Self.hpkeSuite, info: Data(info))
            let secret = try sender.exportSecret(context: Data(exporterContext), outputByteCount: length)
            return (sender.encapsulatedKey.zeroBased, secret.withUnsafeBytes { Data($0) })
        } catch {
            throw .primitiveFailed("HPKE export: \(error)")
        }
    }

    /// SetupBaseR(kem_output, priv, info) then Export(exporterContext, length) (RFC 9180 §5.1, §5.3).
    public func hpkeRecipientExport<K: DataProtocol, I: DataProtocol, X: DataProtocol>(
        _ privateKey: HPKEPrivateKey, kemOutput: K, info: I, exporterContext: X, length: Int
    ) throws(MLSCryptoError) -> Data {
        guard length >= 0, length <= 255 * hashLength else { throw .invalidOutputLength(length) }
        do {
            let recipient = try HPKE.Recipient(
                privateKey: privateKey.key, ciphersuite: Self.hpkeSuite, info: Data(info),
                encapsulatedKey: Data(kemOutput))
            let secret = try recipient.exportSecret(context: Data(exporterContext), outputByteCount: length)
            return secret.withUnsafeBytes { Data($0) }
        } catch {
            throw .decryptionFailed
        }
    }

    private func x25519PublicKey(_ key: HPKEPublicKey) throws(MLSCryptoError) -> Curve25519.KeyAgreement.PublicKey {
        guard key.bytes.count == 32, let parsed = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: key.bytes)
        else { throw .invalidPublicKey }
        return parsed
    }
}
