import Foundation

/// The AAD of the sender data encryption: the first three PrivateMessage fields (RFC 9420 §6.3.2).
public struct SenderDataAAD: Hashable, Sendable, TLSCodable {
    public var groupID: GroupID
    public var epoch: UInt64
    public var contentType: ContentType

    public init(groupID: GroupID, epoch: UInt64, contentType: ContentType) {
        self.groupID = groupID
        self.epoch = epoch
        self.contentType = contentType
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(groupID)
        writer.write(epoch)
        writer.write(contentType)
    }

    public init(from reader: inout TLSReader) throws {
        groupID = try reader.read()
        epoch = try reader.readUInt64()
        contentType = try reader.read()
    }
}
