import Foundation

/// The signed description of a group's current epoch, for joiners (RFC 9420 §12.4.3).
public struct GroupInfo: Hashable, Sendable, TLSCodable {
    public var groupContext: GroupContext
    /// Joiner-only parameters such as ratchet_tree and external_pub; unknown ones must be ignored.
    public var extensions: [Extension]
    /// The confirmation tag of the Commit that started this epoch.
    public var confirmationTag: Data
    /// Leaf index of the member who signed.
    public var signer: LeafIndex
    /// SignWithLabel(., "GroupInfoTBS", GroupInfoTBS).
    public var signature: Data

    public init(groupContext: GroupContext, extensions: [Extension], confirmationTag: Data, signer: LeafIndex, signature: Data) {
        self.groupContext = groupContext
        self.extensions = extensions
        self.confirmationTag = confirmationTag
        self.signer = signer
        self.signature = signature
    }

    /// The signed content: every field except the signature.
    public var tbs: GroupInfoTBS { GroupInfoTBS(groupInfo: self) }

    func encodeContent(to writer: inout TLSWriter) {
        writer.write(groupContext)
        writer.writeVector(extensions)
        writer.writeOpaque(confirmationTag)
        writer.write(signer)
    }

    public func encode(to writer: inout TLSWriter) {
        encodeContent(to: &writer)
        writer.writeOpaque(signature)
    }

    public init(from reader: inout TLSReader) throws {
        groupContext = try reader.read()
        extensions = try reader.readVector()
        confirmationTag = try reader.readOpaque()
        signer = try reader.read()
        signature = try reader.readOpaque()
    }
}

/// The content a GroupInfo signature covers (RFC 9420 §12.4.3).
public struct GroupInfoTBS: Sendable, TLSEncodable {
    public let groupInfo: GroupInfo
    public init(groupInfo: GroupInfo) { self.groupInfo = groupInfo }
    public func encode(to writer: inout TLSWriter) { groupInfo.encodeContent(to: &writer) }
}
