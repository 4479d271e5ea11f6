import CSecp256k1

/// The process-wide libsecp256k1 context.
///
/// `@unchecked Sendable` is sound because the context is created and randomized (the only mutating
/// call, `secp256k1_context_randomize`) once in `init`, before the object is published; afterwards it
/// is only passed as `const secp256k1_context *`, which libsecp256k1 documents as safe to share across
/// threads. Randomization blinds the signing and key-generation multiplications against side channels.
final class Secp256k1Context: @unchecked Sendable {
    /// The shared, randomized context.
    static let shared = Secp256k1Context()

    /// The raw `secp256k1_context *`.
    let raw: OpaquePointer

    private init() {
        guard let ctx = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)) else {
            // Only fails on allocation failure inside libsecp256k1; there is no way to continue.
            fatalError("secp256k1_context_create failed")
        }
        var seed = SecureRandom.bytes(32)
        let ok = secp256k1_context_randomize(ctx, &seed)
        precondition(ok == 1, "secp256k1_context_randomize failed")
        raw = ctx
    }

    deinit { secp256k1_context_destroy(raw) }
}
