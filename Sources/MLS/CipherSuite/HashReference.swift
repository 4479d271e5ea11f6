import Foundation

/// A KeyPackage's identifier: RefHash("MLS 1.0 KeyPackage Reference", KeyPackage) (RFC 9420 §5.2).
public struct KeyPackageRef: Hashable, Sendable, TLSCodable, CustomStringConvertible {
    public var bytes: Data
    public init(_ bytes: Data) { self.bytes = bytes }

    public var description: String { "KeyPackageRef(\(LowerHex.encode(bytes)))" }

    public func encode(to writer: inout TLSWriter) { writer.writeOpaque(bytes) }
    public init(from reader: inout TLSReader) throws { bytes = try reader.readOpaque() }
}

/// A proposal's identifier: RefHash("MLS 1.0 Proposal Reference", AuthenticatedContent) (RFC 9420 §5.2).
public struct ProposalRef: Hashable, Sendable, TLSCodable, CustomStringConvertible {
    public var bytes: Data
    public init(_ bytes: Data) { self.bytes = bytes }

    public var description: String { "ProposalRef(\(LowerHex.encode(bytes)))" }

    public func encode(to writer: inout TLSWriter) { writer.writeOpaque(bytes) }
    public init(from reader: inout TLSReader) throws { bytes = try reader.readOpaque() }
}

extension CipherSuiteProvider {
    public static let keyPackageRefLabel = "MLS 1.0 KeyPackage Reference"
    public static let proposalRefLabel = "MLS 1.0 Proposal Reference"

    /// MakeKeyPackageRef over the encoded KeyPackage (RFC 9420 §5.2).
    public func keyPackageRef<D: DataProtocol>(encodedKeyPackage: D) -> KeyPackageRef {
        KeyPackageRef(refHash(label: Self.keyPackageRefLabel, value: encodedKeyPackage))
    }

    /// MakeProposalRef over the encoded AuthenticatedContent carrying the proposal (RFC 9420 §5.2).
    public func proposalRef<D: DataProtocol>(encodedAuthenticatedContent: D) -> ProposalRef {
        ProposalRef(refHash(label: Self.proposalRefLabel, value: encodedAuthenticatedContent))
    }
}
