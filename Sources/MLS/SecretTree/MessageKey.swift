import Foundation

/// Which of a leaf's two hash ratchets a key comes from (RFC 9420 §9): handshake for proposals and
/// commits, application for application data.
public enum RatchetType: Hashable, Sendable, CustomStringConvertible {
    case handshake
    case application

    /// The label seeding the ratchet from the leaf secret.
    var label: String {
        switch self {
        case .handshake: "handshake"
        case .application: "application"
        }
    }

    public var description: String { label }
}

/// One single-use AEAD key and nonce of a sender ratchet (RFC 9420 §9.1), with its generation.
/// Redacted when printed; callers drop it right after the one encryption or decryption it serves.
public struct MessageKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let generation: UInt32
    public let key: Data
    public let nonce: Data

    public init(generation: UInt32, key: Data, nonce: Data) {
        self.generation = generation
        self.key = key
        self.nonce = nonce
    }

    /// The nonce with the 4-byte reuse guard XORed into its first bytes (RFC 9420 §6.3.1).
    public func nonce(reuseGuard: Data) throws(MLSCryptoError) -> Data {
        guard reuseGuard.count == 4 else { throw .invalidLength(what: "reuse guard", expected: 4, actual: reuseGuard.count) }
        var bytes = [UInt8](nonce)
        for (offset, byte) in reuseGuard.enumerated() { bytes[offset] ^= byte }
        return Data(bytes)
    }

    public var description: String { "MessageKey(generation: \(generation), redacted)" }
    public var debugDescription: String { description }
}

/// The AEAD key and nonce protecting a PrivateMessage's SenderData (RFC 9420 §6.3.2), derived from
/// sender_data_secret and the first Nh bytes of the content ciphertext. Redacted when printed.
public struct SenderDataKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let key: Data
    public let nonce: Data

    /// sender_data_key / sender_data_nonce = ExpandWithLabel(sender_data_secret, "key" / "nonce",
    /// ciphertext_sample, Nk / Nn), where the sample is the whole ciphertext when shorter than Nh.
    public init<C: DataProtocol>(provider: CipherSuiteProvider, senderDataSecret: Data, ciphertext: C) {
        let sample = Data(ciphertext.prefix(provider.hashLength))
        key = provider.expandWithLabelUnchecked(
            secret: senderDataSecret, label: "key", context: sample, length: provider.aeadKeyLength)
        nonce = provider.expandWithLabelUnchecked(
            secret: senderDataSecret, label: "nonce", context: sample, length: provider.aeadNonceLength)
    }

    public var description: String { "SenderDataKey(redacted)" }
    public var debugDescription: String { description }
}
