import Foundation

/// The content a FramedContent signature covers (RFC 9420 §6.1).
///
/// Members and new-member committers also sign the current GroupContext, tying the signature to one
/// group and epoch; external senders and new-member proposers cannot know it and sign without it.
public struct FramedContentTBS: Sendable, TLSEncodable {
    public let version: ProtocolVersion
    public let wireFormat: WireFormat
    public let content: FramedContent
    /// Present exactly for member and new_member_commit senders.
    public let context: GroupContext?

    /// Fails when `context` is given for a sender that does not sign it, or missing for one that does.
    public init(
        version: ProtocolVersion = .mls10, wireFormat: WireFormat, content: FramedContent, context: GroupContext?
    ) throws {
        guard Self.includesContext(content.sender) == (context != nil) else {
            throw MessageEncodingError.framedContentContextMismatch
        }
        self.version = version
        self.wireFormat = wireFormat
        self.content = content
        self.context = context
    }

    /// Whether `sender` signs over the GroupContext.
    public static func includesContext(_ sender: Sender) -> Bool {
        switch sender {
        case .member, .newMemberCommit: true
        case .external, .newMemberProposal: false
        }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(version)
        writer.write(wireFormat)
        writer.write(content)
        if let context { writer.write(context) }
    }
}

/// The input of a PublicMessage's membership tag: the signed content and its auth (RFC 9420 §6.2).
public struct AuthenticatedContentTBM: Sendable, TLSEncodable {
    public var contentTBS: FramedContentTBS
    public var auth: FramedContentAuthData

    public init(contentTBS: FramedContentTBS, auth: FramedContentAuthData) {
        self.contentTBS = contentTBS
        self.auth = auth
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(contentTBS)
        auth.encode(to: &writer, contentType: contentTBS.content.contentType)
    }
}
