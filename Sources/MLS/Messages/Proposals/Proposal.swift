import Foundation

/// A proposed change to the group, tagged by its type (RFC 9420 §12.1).
///
/// Unknown types: the RFC's `select` gives their body no length prefix, so a decoder cannot know
/// where it ends and decoding fails with `MessageDecodingError.unknownProposalType` rather than
/// guessing (OpenMLS and mls-rs assume an `opaque<V>` body for custom proposals; the RFC does not say
/// so). `.unknown` still lets a caller build and encode such a proposal: its `body` is written verbatim.
public enum Proposal: Hashable, Sendable, TLSCodable {
    case add(Add)
    case update(Update)
    case remove(Remove)
    case preSharedKey(PreSharedKey)
    case reInit(ReInit)
    case externalInit(ExternalInit)
    case groupContextExtensions(GroupContextExtensions)
    case selfRemove(SelfRemove)
    /// AppDataUpdate (draft-ietf-mls-extensions): changes one component of the GroupContext's
    /// `app_data_dictionary` (Marmot v2: rename, admins, routing, disband).
    case appDataUpdate(AppDataUpdate)
    /// Another type; `body` is its exact encoding after the type, with no length prefix.
    case unknown(type: ProposalType, body: Data)

    public var type: ProposalType {
        switch self {
        case .add: .add
        case .update: .update
        case .remove: .remove
        case .preSharedKey: .psk
        case .reInit: .reinit
        case .externalInit: .externalInit
        case .groupContextExtensions: .groupContextExtensions
        case .selfRemove: .selfRemove
        case .appDataUpdate: .appDataUpdate
        case .unknown(let type, _): type
        }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(type)
        switch self {
        case .add(let body): writer.write(body)
        case .update(let body): writer.write(body)
        case .remove(let body): writer.write(body)
        case .preSharedKey(let body): writer.write(body)
        case .reInit(let body): writer.write(body)
        case .externalInit(let body): writer.write(body)
        case .groupContextExtensions(let body): writer.write(body)
        case .selfRemove(let body): writer.write(body)
        case .appDataUpdate(let body): writer.write(body)
        case .unknown(_, let body): writer.writeFixed(body)
        }
    }

    public init(from reader: inout TLSReader) throws {
        let type: ProposalType = try reader.read()
        switch type {
        case .add: self = .add(try reader.read())
        case .update: self = .update(try reader.read())
        case .remove: self = .remove(try reader.read())
        case .psk: self = .preSharedKey(try reader.read())
        case .reinit: self = .reInit(try reader.read())
        case .externalInit: self = .externalInit(try reader.read())
        case .groupContextExtensions: self = .groupContextExtensions(try reader.read())
        case .selfRemove: self = .selfRemove(try reader.read())
        case .appDataUpdate: self = .appDataUpdate(try reader.read())
        default: throw MessageDecodingError.unknownProposalType(type.rawValue)
        }
    }
}
