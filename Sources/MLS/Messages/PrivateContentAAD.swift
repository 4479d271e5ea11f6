import Foundation

/// The AAD of the content encryption, identifying the key's group, epoch and type (RFC 9420 §6.3.1).
public struct PrivateContentAAD: Hashable, Sendable, TLSCodable {
    public var groupID: GroupID
    public var epoch: UInt64
    public var contentType: ContentType
    public var authenticatedData: Data

    public init(groupID: GroupID, epoch: UInt64, contentType: ContentType, authenticatedData: Data) {
        self.groupID = groupID
        self.epoch = epoch
        self.contentType = contentType
        self.authenticatedData = authenticatedData
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(groupID)
        writer.write(epoch)
        writer.write(contentType)
        writer.writeOpaque(authenticatedData)
    }

    public init(from reader: inout TLSReader) throws {
        groupID = try reader.read()
        epoch = try reader.readUInt64()
        contentType = try reader.read()
        authenticatedData = try reader.readOpaque()
    }
}
