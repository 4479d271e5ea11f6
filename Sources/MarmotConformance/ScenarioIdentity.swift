import Crypto
import Foundation
import Nostr

/// The Nostr keys MDK's simulator gives a scenario label, so committer ordering (which compares
/// account keys) ranks our clients exactly as it ranks MDK's.
///
/// Secret = SHA-256("marmot-cgka-conformance-nostr-key-v1" ‖ label zero-padded to 32 bytes ‖
/// counter as u64 big-endian), the first counter giving a valid key (MDK 0.9.14
/// `cgka-conformance-simulator/src/client.rs` `deterministic_nostr_keys`, `subject.rs` `pad32`).
enum ScenarioIdentity {
    static func keys(for label: String) -> Keys {
        var seed = Data(label.utf8)
        if seed.count < 32 { seed.append(Data(repeating: 0, count: 32 - seed.count)) }
        var counter: UInt64 = 0
        while true {
            var hasher = SHA256()
            hasher.update(data: Data("marmot-cgka-conformance-nostr-key-v1".utf8))
            hasher.update(data: seed)
            withUnsafeBytes(of: counter.bigEndian) { hasher.update(bufferPointer: $0) }
            if let secret = try? SecretKey(bytes: Array(hasher.finalize())) { return Keys(secretKey: secret) }
            counter += 1
        }
    }

    /// The `h` value MDK's harness gives a group: SHA-256 of a domain string, the creator's key and the name.
    static func nostrGroupID(creator: PublicKey, name: String) -> Data {
        var hasher = SHA256()
        hasher.update(data: Data("marmot-cgka-conformance-nostr-group-id-v1".utf8))
        hasher.update(data: Data(creator.bytes))
        hasher.update(data: Data(name.utf8))
        return Data(hasher.finalize())
    }
}
