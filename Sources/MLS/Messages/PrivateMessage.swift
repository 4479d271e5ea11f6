import Foundation

/// A signed and encrypted message; only group, epoch and content type are visible (RFC 9420 §6.3).
public struct PrivateMessage: Hashable, Sendable, TLSCodable {
    public var groupID: GroupID
    public var epoch: UInt64
    public var contentType: ContentType
    public var authenticatedData: Data
    /// AEAD(sender data key, SenderData, SenderDataAAD).
    public var encryptedSenderData: Data
    /// AEAD(content key, PrivateMessageContent, PrivateContentAAD).
    public var ciphertext: Data

    public init(
        groupID: GroupID, epoch: UInt64, contentType: ContentType, authenticatedData: Data,
        encryptedSenderData: Data, ciphertext: Data
    ) {
        self.groupID = groupID
        self.epoch = epoch
        self.contentType = contentType
        self.authenticatedData = authenticatedData
        self.encryptedSenderData = encryptedSenderData
        self.ciphertext = ciphertext
    }

    /// The AAD of the sender data encryption, from this message's visible fields.
    public var senderDataAAD: SenderDataAAD {
        SenderDataAAD(groupID: groupID, epoch: epoch, contentType: contentType)
    }

    /// The AAD of the content encryption, from this message's visible fields.
    public var contentAAD: PrivateContentAAD {
        PrivateContentAAD(groupID: groupID, epoch: epoch, contentType: contentType, authenticatedData: authenticatedData)
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(groupID)
        writer.write(epoch)
        writer.write(contentType)
        writer.writeOpaque(authenticatedData)
        writer.writeOpaque(encryptedSenderData)
        writer.writeOpaque(ciphertext)
    }

    public init(from reader: inout TLSReader) throws {
        groupID = try reader.read()
        epoch = try reader.readUInt64()
        contentType = try reader.read()
        authenticatedData = try reader.readOpaque()
        encryptedSenderData = try reader.readOpaque()
        ciphertext = try reader.readOpaque()
    }
}
