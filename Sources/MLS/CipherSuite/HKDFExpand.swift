import Crypto
import Foundation

/// HKDF-Expand with HMAC-SHA256 (RFC 5869 §2.3, RFC 2104) composed from swift-crypto's SHA-256.
///
/// A message ratchets its secret tree several times on each side (RFC 9420 §9.1: key, nonce and
/// next secret; the sender-data key and nonce, §6.3.2), each an Expand of one block. swift-crypto's
/// `HKDF.expand` builds a `SymmetricKey` and a keyed `HMAC` per call, which cost several times the
/// hashing itself; here the padded key blocks are made once per call on the stack and the four
/// SHA-256 blocks are all that remains (issue 27). Keys longer than a block, which HMAC hashes first,
/// take swift-crypto's HKDF; MLS's are Nh = 32 bytes.
enum HKDFExpand {
    static let blockSize = 64

    static func sha256<P: DataProtocol, I: DataProtocol>(prk: P, info: I, length: Int) -> Data {
        guard prk.count <= blockSize else {
            let okm = HKDF<SHA256>.expand(pseudoRandomKey: Data(prk), info: Data(info), outputByteCount: length)
            return okm.withUnsafeBytes { Data($0) }
        }
        var innerPad = [UInt8](repeating: 0x36, count: blockSize)
        var outerPad = [UInt8](repeating: 0x5c, count: blockSize)
        for (position, byte) in [UInt8](prk).enumerated() {
            innerPad[position] ^= byte
            outerPad[position] ^= byte
        }
        let info = Data(info)
        var output = Data(capacity: length)
        var previous: SHA256.Digest?
        var counter: UInt8 = 1
        while output.count < length {
            var inner = SHA256()
            inner.update(data: innerPad)
            if let previous { previous.withUnsafeBytes { inner.update(bufferPointer: $0) } }
            inner.update(data: info)
            withUnsafeBytes(of: counter) { inner.update(bufferPointer: $0) }
            let innerDigest = inner.finalize()
            var outer = SHA256()
            outer.update(data: outerPad)
            innerDigest.withUnsafeBytes { outer.update(bufferPointer: $0) }
            let block = outer.finalize()
            block.withUnsafeBytes { output.append(contentsOf: $0.prefix(length - output.count)) }
            previous = block
            counter &+= 1
        }
        return output
    }
}
