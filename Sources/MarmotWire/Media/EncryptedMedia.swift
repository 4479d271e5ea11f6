import Foundation

/// A file encrypted for upload: the ciphertext the blob server stores, its SHA-256 (the name the
/// server gives it, BUD-01/02), and what the reference needs once the server's URL is known.
public struct EncryptedMedia: Sendable {
    public let ciphertext: Data
    public let ciphertextSHA256: Data
    private let makeReference: @Sendable (URL) -> MediaReference

    init(ciphertext: Data, ciphertextSHA256: Data, makeReference: @escaping @Sendable (URL) -> MediaReference) {
        self.ciphertext = ciphertext
        self.ciphertextSHA256 = ciphertextSHA256
        self.makeReference = makeReference
    }

    /// The reference to send, after the upload, with the URL the server answered. The caller checks
    /// that the server stored `ciphertextSHA256` (BUD-02 descriptor) before sending it.
    public func reference(url: URL) -> MediaReference { makeReference(url) }
}
