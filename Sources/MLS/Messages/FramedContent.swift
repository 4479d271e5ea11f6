import Foundation

/// The content of one handshake or application message with its group, epoch and sender (RFC 9420 §6).
public struct FramedContent: Hashable, Sendable, TLSCodable {
    /// The body, whose case is the message's content type.
    public enum Body: Hashable, Sendable {
        case application(Data)
        case proposal(Proposal)
        case commit(Commit)

        public var contentType: ContentType {
            switch self {
            case .application: .application
            case .proposal: .proposal
            case .commit: .commit
            }
        }

        /// Writes the body without its content type (PrivateMessageContent carries the type outside).
        func encode(to writer: inout TLSWriter) {
            switch self {
            case .application(let data): writer.writeOpaque(data)
            case .proposal(let proposal): writer.write(proposal)
            case .commit(let commit): writer.write(commit)
            }
        }

        /// Reads a body whose content type is already known.
        static func decode(_ type: ContentType, from reader: inout TLSReader) throws -> Body {
            switch type {
            case .application: .application(try reader.readOpaque())
            case .proposal: .proposal(try reader.read())
            case .commit: .commit(try reader.read())
            }
        }
    }

    public var groupID: GroupID
    public var epoch: UInt64
    public var sender: Sender
    public var authenticatedData: Data
    public var body: Body

    public init(groupID: GroupID, epoch: UInt64, sender: Sender, authenticatedData: Data, body: Body) {
        self.groupID = groupID
        self.epoch = epoch
        self.sender = sender
        self.authenticatedData = authenticatedData
        self.body = body
    }

    public var contentType: ContentType { body.contentType }

    public func encode(to writer: inout TLSWriter) {
        writer.write(groupID)
        writer.write(epoch)
        writer.write(sender)
        writer.writeOpaque(authenticatedData)
        writer.write(contentType)
        body.encode(to: &writer)
    }

    public init(from reader: inout TLSReader) throws {
        groupID = try reader.read()
        epoch = try reader.readUInt64()
        sender = try reader.read()
        authenticatedData = try reader.readOpaque()
        body = try Body.decode(try reader.read(ContentType.self), from: &reader)
    }
}
