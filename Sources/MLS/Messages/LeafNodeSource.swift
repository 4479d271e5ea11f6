import Foundation

/// How a leaf entered the tree, with the field that source carries (RFC 9420 §7.2).
///
/// The source selects the following bytes, so reserved and unknown values are rejected.
public enum LeafNodeSource: Hashable, Sendable, TLSCodable {
    /// From a pre-published KeyPackage, valid within `lifetime`.
    case keyPackage(lifetime: Lifetime)
    /// From an Update proposal.
    case update
    /// From a Commit's UpdatePath, with the parent hash of the leaf's parent (§7.9).
    case commit(parentHash: Data)

    /// The `LeafNodeSource` enum value on the wire.
    public var code: UInt8 {
        switch self {
        case .keyPackage: 1
        case .update: 2
        case .commit: 3
        }
    }

    /// Update and commit leaves sign over group_id and leaf_index as well (§7.2).
    public var signsGroupContext: Bool {
        switch self {
        case .keyPackage: false
        case .update, .commit: true
        }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(code)
        switch self {
        case .keyPackage(let lifetime): writer.write(lifetime)
        case .update: break
        case .commit(let parentHash): writer.writeOpaque(parentHash)
        }
    }

    public init(from reader: inout TLSReader) throws {
        let code = try reader.readUInt8()
        switch code {
        case 1: self = .keyPackage(lifetime: try reader.read())
        case 2: self = .update
        case 3: self = .commit(parentHash: try reader.readOpaque())
        default: throw MessageDecodingError.unknownLeafNodeSource(code)
        }
    }
}
