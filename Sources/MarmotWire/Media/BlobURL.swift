import Foundation
import Nostr

/// Blossom blob URLs: a blob is named by the SHA-256 of its bytes, as the last path segment with
/// an optional extension (`https://server/<64 hex>.bin`, BUD-01).
enum BlobURL {
    /// The SHA-256 the URL's last path segment names, or nil.
    static func sha256(in url: URL) -> Data? {
        let segment = url.lastPathComponent
        let name = segment.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard name.utf8.count == 64, let bytes = Hex.decode(name, allowUppercase: true) else { return nil }
        return Data(bytes)
    }
}
