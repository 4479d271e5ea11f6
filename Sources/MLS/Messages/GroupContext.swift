import Foundation

/// The state every member agrees on for an epoch (RFC 9420 §8.1); its encoding feeds the key schedule.
public struct GroupContext: Hashable, Sendable, TLSCodable {
    public var version: ProtocolVersion
    public var cipherSuite: CipherSuite
    public var groupID: GroupID
    public var epoch: UInt64
    public var treeHash: Data
    public var confirmedTranscriptHash: Data
    public var extensions: [Extension]

    public init(
        version: ProtocolVersion = .mls10, cipherSuite: CipherSuite, groupID: GroupID, epoch: UInt64,
        treeHash: Data, confirmedTranscriptHash: Data, extensions: [Extension]
    ) {
        self.version = version
        self.cipherSuite = cipherSuite
        self.groupID = groupID
        self.epoch = epoch
        self.treeHash = treeHash
        self.confirmedTranscriptHash = confirmedTranscriptHash
        self.extensions = extensions
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(version)
        writer.write(cipherSuite)
        writer.write(groupID)
        writer.write(epoch)
        writer.writeOpaque(treeHash)
        writer.writeOpaque(confirmedTranscriptHash)
        writer.writeVector(extensions)
    }

    public init(from reader: inout TLSReader) throws {
        version = try reader.read()
        cipherSuite = try reader.read()
        groupID = try reader.read()
        epoch = try reader.readUInt64()
        treeHash = try reader.readOpaque()
        confirmedTranscriptHash = try reader.readOpaque()
        extensions = try reader.readVector()
    }
}
