import Foundation

/// A FramedContent with its authentication, independent of how it is protected (RFC 9420 §6).
///
/// Its encoding is the input of ProposalRef hashing (§5.2) and of the transcript hashes (§8.2).
public struct AuthenticatedContent: Hashable, Sendable, TLSCodable {
    public var wireFormat: WireFormat
    public var content: FramedContent
    public var auth: FramedContentAuthData

    public init(wireFormat: WireFormat, content: FramedContent, auth: FramedContentAuthData) {
        self.wireFormat = wireFormat
        self.content = content
        self.auth = auth
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(wireFormat)
        writer.write(content)
        auth.encode(to: &writer, contentType: content.contentType)
    }

    public init(from reader: inout TLSReader) throws {
        wireFormat = try reader.read()
        content = try reader.read()
        auth = try FramedContentAuthData(from: &reader, contentType: content.contentType)
    }
}
