import CSecp256k1

/// BIP-340 Schnorr signatures over secp256k1, as NIP-01 uses for event ids.
public enum Schnorr {
    /// Signs `message` (any length) with fresh 32-byte auxiliary randomness, as BIP-340 recommends.
    public static func sign(message: [UInt8], secretKey: SecretKey) -> Signature {
        sign(message: message, keypair: SchnorrKeypair(secretKey))
    }

    /// Signs with a keypair made once and fresh auxiliary randomness (`Keys.sign`, events).
    static func sign(message: [UInt8], keypair: SchnorrKeypair) -> Signature {
        sign(message: message, keypair: keypair, auxRand: SecureRandom.bytes(32))
    }

    /// Signs with caller-chosen auxiliary randomness; deterministic, for the BIP-340 test vectors.
    static func sign(message: [UInt8], secretKey: SecretKey, auxRand: [UInt8]) -> Signature {
        sign(message: message, keypair: SchnorrKeypair(secretKey), auxRand: auxRand)
    }

    /// Signs with a keypair made once (`Keys` keeps one): creating it is a generator
    /// multiplication, a third of what signing an event with a fresh key costs (issue 27).
    static func sign(message: [UInt8], keypair made: SchnorrKeypair, auxRand: [UInt8]) -> Signature {
        let ctx = Secp256k1Context.shared.raw
        var keypair = made.raw
        var aux = auxRand
        var sig = [UInt8](repeating: 0, count: 64)
        let ok: Int32 = aux.withUnsafeMutableBytes { auxPtr in
            // SECP256K1_SCHNORRSIG_EXTRAPARAMS_INIT spelled out: the C macro is not importable.
            var params = secp256k1_schnorrsig_extraparams(
                magic: (0xda, 0x6f, 0xb3, 0x8c), noncefp: nil, ndata: auxPtr.baseAddress)
            return message.withUnsafeBufferPointer { msg in
                secp256k1_schnorrsig_sign_custom(ctx, &sig, msg.baseAddress, msg.count, &keypair, &params)
            }
        }
        // sign_custom only fails for an invalid keypair or magic, both excluded above.
        precondition(ok == 1, "secp256k1_schnorrsig_sign_custom failed")
        return Signature(uncheckedBytes: sig)
    }

    /// Verifies a BIP-340 signature over `message` (any length).
    public static func verify(signature: Signature, message: [UInt8], publicKey: PublicKey) -> Bool {
        verify(signature: signature.bytes, message: message, publicKeyBytes: publicKey.bytes)
    }

    /// Verifies raw bytes; false for a malformed key or signature rather than an error.
    static func verify(signature: [UInt8], message: [UInt8], publicKeyBytes: [UInt8]) -> Bool {
        guard signature.count == 64, publicKeyBytes.count == 32 else { return false }
        let ctx = Secp256k1Context.shared.raw
        var xonly = secp256k1_xonly_pubkey()
        guard secp256k1_xonly_pubkey_parse(ctx, &xonly, publicKeyBytes) == 1 else { return false }
        return message.withUnsafeBufferPointer { msg in
            secp256k1_schnorrsig_verify(ctx, signature, msg.baseAddress, msg.count, &xonly) == 1
        }
    }
}

/// libsecp256k1's keypair (secret scalar and public point) for one secret key, made once.
///
/// It holds the secret key: never printed, never stored.
struct SchnorrKeypair: @unchecked Sendable, CustomStringConvertible {
    /// Plain bytes, read-only after `init` (hence the unchecked `Sendable`).
    let raw: secp256k1_keypair

    init(_ secretKey: SecretKey) {
        var keypair = secp256k1_keypair()
        // The secret key is a validated scalar, so keypair creation cannot fail.
        _ = secp256k1_keypair_create(Secp256k1Context.shared.raw, &keypair, secretKey.bytes)
        raw = keypair
    }

    /// The x-only public key (BIP-340).
    var publicKey: PublicKey {
        let ctx = Secp256k1Context.shared.raw
        var keypair = raw
        var xonly = secp256k1_xonly_pubkey()
        var out = [UInt8](repeating: 0, count: 32)
        _ = secp256k1_keypair_xonly_pub(ctx, &xonly, nil, &keypair)
        _ = secp256k1_xonly_pubkey_serialize(ctx, &out, &xonly)
        return PublicKey(uncheckedBytes: out)
    }

    var description: String { "SchnorrKeypair(redacted)" }
}
