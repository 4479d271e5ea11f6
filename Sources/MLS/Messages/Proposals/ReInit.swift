import Foundation

/// ReInit: closes the group in favour of a new one with these parameters (RFC 9420 §12.1.5, §11.2).
public struct ReInit: Hashable, Sendable, TLSCodable {
    public var groupID: GroupID
    public var version: ProtocolVersion
    public var cipherSuite: CipherSuite
    public var extensions: [Extension]

    public init(groupID: GroupID, version: ProtocolVersion, cipherSuite: CipherSuite, extensions: [Extension]) {
        self.groupID = groupID
        self.version = version
        self.cipherSuite = cipherSuite
        self.extensions = extensions
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(groupID)
        writer.write(version)
        writer.write(cipherSuite)
        writer.writeVector(extensions)
    }

    public init(from reader: inout TLSReader) throws {
        groupID = try reader.read()
        version = try reader.read()
        cipherSuite = try reader.read()
        extensions = try reader.readVector()
    }
}
