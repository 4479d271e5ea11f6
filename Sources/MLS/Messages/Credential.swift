import Foundation

/// A credential type code point (RFC 9420 §5.3, §17.5), open so unknown and GREASE values round-trip.
public struct CredentialType: RawRepresentable, Hashable, Sendable, TLSCodable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let basic = CredentialType(rawValue: 0x0001)
    public static let x509 = CredentialType(rawValue: 0x0002)

    public var description: String { "0x" + String(rawValue, radix: 16).leftPadded(to: 4) }

    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
    public init(from reader: inout TLSReader) throws { rawValue = try reader.readUInt16() }
}

/// One DER-encoded X.509 certificate of a chain (RFC 9420 §5.3).
public struct Certificate: Hashable, Sendable, TLSCodable {
    public var derBytes: Data
    public init(derBytes: Data) { self.derBytes = derBytes }

    public func encode(to writer: inout TLSWriter) { writer.writeOpaque(derBytes) }
    public init(from reader: inout TLSReader) throws { derBytes = try reader.readOpaque() }
}

/// Binds an identity to a member's signature key (RFC 9420 §5.3).
///
/// The RFC's `select` has no body for unknown types, so their layout is not on the wire. Every
/// credential type defined so far (basic, x509, and the multi-credential types of
/// draft-ietf-mls-extensions) has a body that is exactly one `<V>` vector, and OpenMLS and mls-rs read
/// unknown types that way too; this type does the same so leaves with unknown credentials round-trip.
public enum Credential: Hashable, Sendable, TLSCodable {
    /// `opaque identity<V>`; Marmot puts the 32-byte Nostr public key here (MIP-00).
    case basic(identity: Data)
    /// The chain, end-entity certificate first.
    case x509(certificates: [Certificate])
    /// Another type; `content` is the bytes inside its single `<V>` vector.
    case unknown(type: CredentialType, content: Data)

    public var type: CredentialType {
        switch self {
        case .basic: .basic
        case .x509: .x509
        case .unknown(let type, _): type
        }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(type)
        switch self {
        case .basic(let identity): writer.writeOpaque(identity)
        case .x509(let certificates): writer.writeVector(certificates)
        case .unknown(_, let content): writer.writeOpaque(content)
        }
    }

    public init(from reader: inout TLSReader) throws {
        let type: CredentialType = try reader.read()
        switch type {
        case .basic: self = .basic(identity: try reader.readOpaque())
        case .x509: self = .x509(certificates: try reader.readVector())
        default: self = .unknown(type: type, content: try reader.readOpaque())
        }
    }
}
