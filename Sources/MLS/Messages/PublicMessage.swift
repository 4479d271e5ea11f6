import Foundation

/// A signed, unencrypted message (RFC 9420 §6.2); members add a membership tag.
public struct PublicMessage: Hashable, Sendable, TLSCodable {
    public var content: FramedContent
    public var auth: FramedContentAuthData
    /// MAC(membership_key, AuthenticatedContentTBM); present exactly when the sender is a member.
    public var membershipTag: Data?

    public init(content: FramedContent, auth: FramedContentAuthData, membershipTag: Data?) {
        self.content = content
        self.auth = auth
        self.membershipTag = membershipTag
    }

    /// The message as an AuthenticatedContent (wire format mls_public_message).
    public var authenticatedContent: AuthenticatedContent {
        AuthenticatedContent(wireFormat: .publicMessage, content: content, auth: auth)
    }

    /// Whether the sender type carries a membership tag.
    static func hasMembershipTag(_ sender: Sender) -> Bool {
        if case .member = sender { true } else { false }
    }

    /// Writes the fields; a member message without a tag writes an empty MAC (callers set it before sending).
    public func encode(to writer: inout TLSWriter) {
        writer.write(content)
        auth.encode(to: &writer, contentType: content.contentType)
        if Self.hasMembershipTag(content.sender) { writer.writeOpaque(membershipTag ?? Data()) }
    }

    public init(from reader: inout TLSReader) throws {
        content = try reader.read()
        auth = try FramedContentAuthData(from: &reader, contentType: content.contentType)
        membershipTag = Self.hasMembershipTag(content.sender) ? try reader.readOpaque() : nil
    }
}
