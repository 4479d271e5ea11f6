import Foundation

/// The sender's signature and, for commits, the confirmation tag (RFC 9420 §6.1).
///
/// Its layout depends on the enclosing content type, so it is decoded with that type in hand.
public struct FramedContentAuthData: Hashable, Sendable {
    /// SignWithLabel(., "FramedContentTBS", FramedContentTBS).
    public var signature: Data
    /// MAC(confirmation_key, confirmed_transcript_hash); present exactly when the content is a commit.
    public var confirmationTag: Data?

    public init(signature: Data, confirmationTag: Data?) {
        self.signature = signature
        self.confirmationTag = confirmationTag
    }

    /// Writes the fields; a commit without a tag writes an empty MAC (callers set it before sending).
    public func encode(to writer: inout TLSWriter, contentType: ContentType) {
        writer.writeOpaque(signature)
        if contentType == .commit { writer.writeOpaque(confirmationTag ?? Data()) }
    }

    public init(from reader: inout TLSReader, contentType: ContentType) throws {
        signature = try reader.readOpaque()
        confirmationTag = contentType == .commit ? try reader.readOpaque() : nil
    }
}
