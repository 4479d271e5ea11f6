import Foundation

/// The plaintext of a PrivateMessage: body, auth, then zero padding (RFC 9420 §6.3.1).
///
/// The content type travels in the PrivateMessage header, so decoding takes it as a parameter. The
/// padding is whatever follows the auth field; every padding byte must be zero, so padding cannot
/// become a covert channel, and a non-zero byte rejects the message.
public struct PrivateMessageContent: Hashable, Sendable, TLSEncodable {
    public var body: FramedContent.Body
    public var auth: FramedContentAuthData
    /// Number of zero bytes appended.
    public var paddingLength: Int

    public init(body: FramedContent.Body, auth: FramedContentAuthData, paddingLength: Int = 0) {
        self.body = body
        self.auth = auth
        self.paddingLength = max(0, paddingLength)
    }

    public var contentType: ContentType { body.contentType }

    public func encode(to writer: inout TLSWriter) {
        body.encode(to: &writer)
        auth.encode(to: &writer, contentType: contentType)
        writer.writeFixed(Data(count: paddingLength))
    }

    /// Decodes a whole decrypted plaintext, padding included.
    public init<D: DataProtocol>(plaintext: D, contentType: ContentType) throws {
        var reader = TLSReader(plaintext)
        body = try FramedContent.Body.decode(contentType, from: &reader)
        auth = try FramedContentAuthData(from: &reader, contentType: contentType)
        let padding = try reader.readFixed(reader.remaining)
        if let offset = padding.firstIndex(where: { $0 != 0 }) {
            throw MessageDecodingError.nonZeroPadding(offset: offset - padding.startIndex)
        }
        paddingLength = padding.count
    }
}
