import Foundation

/// Who sent a FramedContent (RFC 9420 §6); the type selects the body, so unknown types are rejected.
public enum Sender: Hashable, Sendable, TLSCodable {
    /// A member, by leaf index.
    case member(leafIndex: LeafIndex)
    /// An entry of the external_senders extension, by index (§12.1.8).
    case external(senderIndex: UInt32)
    /// A non-member proposing its own Add (§12.1.8).
    case newMemberProposal
    /// A non-member joining by external Commit (§12.4.3.2).
    case newMemberCommit

    /// The `SenderType` value on the wire.
    public var typeCode: UInt8 {
        switch self {
        case .member: 1
        case .external: 2
        case .newMemberProposal: 3
        case .newMemberCommit: 4
        }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(typeCode)
        switch self {
        case .member(let index): writer.write(index)
        case .external(let index): writer.write(index)
        case .newMemberProposal, .newMemberCommit: break
        }
    }

    public init(from reader: inout TLSReader) throws {
        let type = try reader.readUInt8()
        switch type {
        case 1: self = .member(leafIndex: try reader.read())
        case 2: self = .external(senderIndex: try reader.readUInt32())
        case 3: self = .newMemberProposal
        case 4: self = .newMemberCommit
        default: throw MessageDecodingError.unknownSenderType(type)
        }
    }
}
