import Foundation

/// A proposal type code point (RFC 9420 §12.1, §17.4), open so unknown and GREASE values round-trip
/// inside Capabilities and RequiredCapabilities.
public struct ProposalType: RawRepresentable, Hashable, Sendable, TLSCodable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let add = ProposalType(rawValue: 0x0001)
    public static let update = ProposalType(rawValue: 0x0002)
    public static let remove = ProposalType(rawValue: 0x0003)
    public static let psk = ProposalType(rawValue: 0x0004)
    public static let reinit = ProposalType(rawValue: 0x0005)
    public static let externalInit = ProposalType(rawValue: 0x0006)
    public static let groupContextExtensions = ProposalType(rawValue: 0x0007)
    /// self_remove (draft-ietf-mls-extensions), which Marmot uses to leave a group (MIP-03).
    public static let selfRemove = ProposalType(rawValue: 0x000a)

    /// Types every client supports and must not list in Capabilities (§7.2).
    public var isDefault: Bool { (0x0001...0x0007).contains(rawValue) }

    public var description: String { "0x" + String(rawValue, radix: 16).leftPadded(to: 4) }

    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
    public init(from reader: inout TLSReader) throws { rawValue = try reader.readUInt16() }
}
