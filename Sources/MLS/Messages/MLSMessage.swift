import Foundation

/// The outer envelope of every MLS message on the wire (RFC 9420 §6).
///
/// The wire format selects the body, so formats without a defined body are rejected; so are versions
/// other than mls10, since the RFC fixes the field to that value, and KeyPackages whose own version
/// differs from the envelope's (§10).
public struct MLSMessage: Hashable, Sendable, TLSCodable {
    public enum Body: Hashable, Sendable {
        case publicMessage(PublicMessage)
        case privateMessage(PrivateMessage)
        case welcome(Welcome)
        case groupInfo(GroupInfo)
        case keyPackage(KeyPackage)

        public var wireFormat: WireFormat {
            switch self {
            case .publicMessage: .publicMessage
            case .privateMessage: .privateMessage
            case .welcome: .welcome
            case .groupInfo: .groupInfo
            case .keyPackage: .keyPackage
            }
        }
    }

    public var version: ProtocolVersion
    public var body: Body

    public init(version: ProtocolVersion = .mls10, _ body: Body) {
        self.version = version
        self.body = body
    }

    public var wireFormat: WireFormat { body.wireFormat }

    public func encode(to writer: inout TLSWriter) {
        writer.write(version)
        writer.write(wireFormat)
        switch body {
        case .publicMessage(let message): writer.write(message)
        case .privateMessage(let message): writer.write(message)
        case .welcome(let welcome): writer.write(welcome)
        case .groupInfo(let groupInfo): writer.write(groupInfo)
        case .keyPackage(let keyPackage): writer.write(keyPackage)
        }
    }

    public init(from reader: inout TLSReader) throws {
        version = try reader.read()
        guard version == .mls10 else { throw MessageDecodingError.unsupportedVersion(version.rawValue) }
        let format: WireFormat = try reader.read()
        switch format {
        case .publicMessage: body = .publicMessage(try reader.read())
        case .privateMessage: body = .privateMessage(try reader.read())
        case .welcome: body = .welcome(try reader.read())
        case .groupInfo: body = .groupInfo(try reader.read())
        case .keyPackage:
            let keyPackage: KeyPackage = try reader.read()
            guard keyPackage.version == version else {
                throw MessageDecodingError.keyPackageVersionMismatch(keyPackage.version.rawValue)
            }
            body = .keyPackage(keyPackage)
        default: throw MessageDecodingError.unknownWireFormat(format.rawValue)
        }
    }
}
