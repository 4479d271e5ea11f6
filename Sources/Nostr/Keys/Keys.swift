import Foundation

/// A Nostr key pair: a secret key and its x-only public key, computed once.
///
/// Printing shows only the public key.
public struct Keys: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    public let secretKey: SecretKey
    public let publicKey: PublicKey
    /// The keypair signing uses, made once with the public key (each event signed with a fresh
    /// key, as every kind-445 is, would otherwise make it twice; issue 27).
    let keypair: SchnorrKeypair

    /// Derives the public key from `secretKey`.
    public init(secretKey: SecretKey) {
        self.secretKey = secretKey
        keypair = SchnorrKeypair(secretKey)
        publicKey = keypair.publicKey
    }

    public static func == (lhs: Keys, rhs: Keys) -> Bool {
        lhs.secretKey == rhs.secretKey && lhs.publicKey == rhs.publicKey
    }

    /// A fresh random key pair.
    public static func generate() -> Keys { Keys(secretKey: .generate()) }

    /// Imports an `nsec1…` string or 64 hex characters.
    public init(importing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.lowercased().hasPrefix("nsec1") {
            self.init(secretKey: try SecretKey(nsec: trimmed))
        } else {
            self.init(secretKey: try SecretKey(hex: trimmed))
        }
    }

    /// BIP-340 signature over `message` (any length) with fresh auxiliary randomness.
    public func sign<Bytes: Collection>(_ message: Bytes) -> Signature where Bytes.Element == UInt8 {
        Schnorr.sign(message: Array(message), keypair: keypair)
    }

    public var description: String { "Keys(publicKey: \(publicKey.hex))" }
    public var customMirror: Mirror { Mirror(self, children: ["publicKey": publicKey], displayStyle: .struct) }
}
