import Foundation

/// A proposal in a Commit, inline or by reference to one sent earlier (RFC 9420 §12.4).
public enum ProposalOrRef: Hashable, Sendable, TLSCodable {
    case proposal(Proposal)
    case reference(ProposalRef)

    public func encode(to writer: inout TLSWriter) {
        switch self {
        case .proposal(let proposal):
            writer.write(UInt8(1))
            writer.write(proposal)
        case .reference(let ref):
            writer.write(UInt8(2))
            writer.write(ref)
        }
    }

    public init(from reader: inout TLSReader) throws {
        let type = try reader.readUInt8()
        switch type {
        case 1: self = .proposal(try reader.read())
        case 2: self = .reference(try reader.read())
        default: throw MessageDecodingError.unknownProposalOrRefType(type)
        }
    }
}
