import CSecp256k1
import Crypto

extension NIP44 {
    /// The NIP-44 v2 conversation key shared by two parties (32 bytes, symmetric in the two keys).
    ///
    /// `HKDF-extract(salt: "nip44-v2", IKM: x coordinate of the secp256k1 ECDH point)`. It is a secret:
    /// not `Codable`, printed redacted.
    public struct ConversationKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        let bytes: [UInt8]

        /// Derives the key for `secretKey` talking to `publicKey` (the peer's even-y point).
        public init(secretKey: SecretKey, publicKey: PublicKey) {
            let shared = Self.sharedX(secretKey: secretKey, publicKey: publicKey)
            let prk = HKDF<SHA256>.extract(inputKeyMaterial: SymmetricKey(data: shared), salt: Array("nip44-v2".utf8))
            bytes = Array(prk)
        }

        /// Wraps an existing 32-byte conversation key.
        public init<Bytes: Collection>(bytes: Bytes) throws where Bytes.Element == UInt8 {
            let raw = Array(bytes)
            guard raw.count == 32 else { throw NIP44Error.invalidKeyMaterial("conversation key must be 32 bytes") }
            self.bytes = raw
        }

        /// The unhashed x coordinate of `secretKey · P`, where P is the even-y lift of `publicKey`.
        static func sharedX(secretKey: SecretKey, publicKey: PublicKey) -> [UInt8] {
            let ctx = Secp256k1Context.shared.raw
            var point = secp256k1_pubkey()
            // Both inputs were validated at construction, so parsing and ECDH cannot fail.
            _ = secp256k1_ec_pubkey_parse(ctx, &point, [0x02] + publicKey.bytes, 33)
            var out = [UInt8](repeating: 0, count: 32)
            let ok = secp256k1_ecdh(ctx, &out, &point, secretKey.bytes, { output, x32, _, _ in
                guard let output, let x32 else { return 0 }
                output.update(from: x32, count: 32)
                return 1
            }, nil)
            precondition(ok == 1, "secp256k1_ecdh failed on validated keys")
            return out
        }

        /// Exports the raw key (a secret).
        public func rawBytes() -> [UInt8] { bytes }

        public static func == (lhs: ConversationKey, rhs: ConversationKey) -> Bool { constantTimeEqual(lhs.bytes, rhs.bytes) }
        public var description: String { "ConversationKey(redacted)" }
        public var debugDescription: String { "ConversationKey(redacted)" }
        public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
    }

    /// Per-message keys: `HKDF-expand(conversation key, info: nonce, L: 76)` split 32 / 12 / 32.
    struct MessageKeys {
        let chachaKey: [UInt8]
        let chachaNonce: [UInt8]
        let hmacKey: [UInt8]

        init(conversationKey: ConversationKey, nonce: [UInt8]) {
            let okm = HKDF<SHA256>.expand(pseudoRandomKey: conversationKey.bytes, info: nonce, outputByteCount: 76)
            let all = okm.withUnsafeBytes { Array($0) }
            chachaKey = Array(all[0..<32])
            chachaNonce = Array(all[32..<44])
            hmacKey = Array(all[44..<76])
        }
    }
}
