import Foundation

/// The kind of a pre-shared key (RFC 9420 §8.4), open so unknown values round-trip.
public struct PSKType: RawRepresentable, Hashable, Sendable, TLSCodable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let external = PSKType(rawValue: 1)
    public static let resumption = PSKType(rawValue: 2)
    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
    public init(from reader: inout TLSReader) throws { rawValue = try reader.readUInt8() }
}

/// Why a resumption PSK is injected (RFC 9420 §8.6).
public struct ResumptionPSKUsage: RawRepresentable, Hashable, Sendable, TLSCodable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let application = ResumptionPSKUsage(rawValue: 1)
    public static let reinit = ResumptionPSKUsage(rawValue: 2)
    public static let branch = ResumptionPSKUsage(rawValue: 3)
    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
    public init(from reader: inout TLSReader) throws { rawValue = try reader.readUInt8() }
}

/// Names a pre-shared key and carries the nonce that binds it to one use (RFC 9420 §8.4).
public struct PreSharedKeyID: Hashable, Sendable, TLSCodable {
    /// Which PSK: an external one by id, or a resumption secret of a (group, epoch).
    public enum Kind: Hashable, Sendable {
        case external(pskID: Data)
        case resumption(usage: ResumptionPSKUsage, groupID: GroupID, epoch: UInt64)
    }

    public var kind: Kind
    public var nonce: Data

    public init(kind: Kind, nonce: Data) {
        self.kind = kind
        self.nonce = nonce
    }

    public func encode(to writer: inout TLSWriter) {
        switch kind {
        case .external(let pskID):
            writer.write(PSKType.external)
            writer.writeOpaque(pskID)
        case .resumption(let usage, let groupID, let epoch):
            writer.write(PSKType.resumption)
            writer.write(usage)
            writer.write(groupID)
            writer.write(epoch)
        }
        writer.writeOpaque(nonce)
    }

    public init(from reader: inout TLSReader) throws {
        let type: PSKType = try reader.read()
        switch type {
        case .external:
            kind = .external(pskID: try reader.readOpaque())
        case .resumption:
            kind = .resumption(usage: try reader.read(), groupID: try reader.read(), epoch: try reader.readUInt64())
        default:
            throw TLSDecodingError.invalidValue("psktype \(type.rawValue)")
        }
        nonce = try reader.readOpaque()
    }
}
