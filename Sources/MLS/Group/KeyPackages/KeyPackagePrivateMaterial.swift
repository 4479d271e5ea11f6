import Foundation

/// The private keys behind one KeyPackage (RFC 9420 §10): the HPKE init key a Welcome is encrypted to,
/// the leaf's HPKE encryption key, and the leaf's signing key.
///
/// Not `Codable` and redacted when printed. `serializedForStorage()` is the one deliberate way out, a
/// versioned TLS encoding meant to be encrypted at rest by the storage layer.
public struct KeyPackagePrivateMaterial: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The suite the keys belong to.
    public let cipherSuite: CipherSuite
    /// Private half of `KeyPackage.initKey`; decrypts the joiner's GroupSecrets (§12.4.3.1).
    public let initPrivateKey: HPKEPrivateKey
    /// Private half of `leafNode.encryptionKey`; the new member's leaf key in the tree.
    public let encryptionPrivateKey: HPKEPrivateKey
    /// Private half of `leafNode.signatureKey`; signs the member's messages in the group.
    public let signaturePrivateKey: SignaturePrivateKey

    public init(
        cipherSuite: CipherSuite = .mls128X25519AES128GCMSHA256Ed25519, initPrivateKey: HPKEPrivateKey,
        encryptionPrivateKey: HPKEPrivateKey, signaturePrivateKey: SignaturePrivateKey
    ) {
        self.cipherSuite = cipherSuite
        self.initPrivateKey = initPrivateKey
        self.encryptionPrivateKey = encryptionPrivateKey
        self.signaturePrivateKey = signaturePrivateKey
    }

    /// True when all three keys are the private halves of the KeyPackage's public keys.
    public func matches(_ keyPackage: KeyPackage) -> Bool {
        keyPackage.cipherSuite == cipherSuite
            && initPrivateKey.publicKey == keyPackage.initKey
            && encryptionPrivateKey.publicKey == keyPackage.leafNode.encryptionKey
            && signaturePrivateKey.publicKey == keyPackage.leafNode.signatureKey
    }

    public var description: String { "KeyPackagePrivateMaterial(redacted)" }
    public var debugDescription: String { description }

    // MARK: Storage

    /// The storage format version written by `serializedForStorage()`.
    public static let storageVersion: UInt16 = 1

    /// Versioned TLS encoding for persistence; it holds secrets, so encrypt it and never log it:
    /// `uint16 storage_version = 1; CipherSuite suite; opaque init_priv<V>; opaque encryption_priv<V>;
    /// opaque signature_seed<V>`.
    public func serializedForStorage() -> Data {
        var writer = TLSWriter(capacity: 110)
        writer.write(Self.storageVersion)
        writer.write(cipherSuite)
        writer.writeOpaque(initPrivateKey.rawBytesForStorage)
        writer.writeOpaque(encryptionPrivateKey.rawBytesForStorage)
        writer.writeOpaque(signaturePrivateKey.rawBytesForStorage)
        return writer.data
    }

    /// Reads what `serializedForStorage()` wrote; rejects other versions, suites, trailing bytes and
    /// keys of the wrong size.
    public init<D: DataProtocol>(storage: D) throws(KeyPackageStorageError) {
        var reader = TLSReader(storage)
        let version: UInt16, suite: CipherSuite, initBytes: Data, encryptionBytes: Data, signatureBytes: Data
        do {
            version = try reader.readUInt16()
            guard version == Self.storageVersion else { throw KeyPackageStorageError.unsupportedVersion(version) }
            suite = try reader.read()
            initBytes = try reader.readOpaque()
            encryptionBytes = try reader.readOpaque()
            signatureBytes = try reader.readOpaque()
            try reader.finish()
        } catch let error as KeyPackageStorageError {
            throw error
        } catch {
            throw .malformed
        }
        guard suite == .mls128X25519AES128GCMSHA256Ed25519 else { throw .unsupportedCipherSuite(suite) }
        do {
            self.init(
                cipherSuite: suite, initPrivateKey: try HPKEPrivateKey(rawBytes: initBytes),
                encryptionPrivateKey: try HPKEPrivateKey(rawBytes: encryptionBytes),
                signaturePrivateKey: try SignaturePrivateKey(seed: signatureBytes))
        } catch {
            throw .invalidKey(error)
        }
    }
}

/// Why stored KeyPackage private material could not be read back.
public enum KeyPackageStorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A storage format version this code does not know.
    case unsupportedVersion(UInt16)
    /// Keys for a suite other than 0x0001.
    case unsupportedCipherSuite(CipherSuite)
    /// Truncated, over-long or otherwise undecodable bytes.
    case malformed
    /// A key of the wrong size or value.
    case invalidKey(MLSCryptoError)

    public var description: String {
        switch self {
        case .unsupportedVersion(let v): "unsupported key package storage version \(v)"
        case .unsupportedCipherSuite(let s): "stored key package keys are for unsupported suite \(s)"
        case .malformed: "stored key package keys are malformed"
        case .invalidKey(let e): "stored key package key is invalid: \(e)"
        }
    }
}
