import Foundation

/// Structural errors in RFC 9420 wire structs beyond the codec's own rules (`TLSDecodingError`).
///
/// A `select` on an unknown or reserved code point cannot be parsed because the body's length is not
/// on the wire, so such values are rejected rather than guessed (RFC 9420 §2.1, §6, §12.1).
public enum MessageDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `ProtocolVersion` other than mls10 where the RFC fixes it (MLSMessage, §6).
    case unsupportedVersion(UInt16)
    /// A KeyPackage in an MLSMessage whose version differs from the envelope's (§10).
    case keyPackageVersionMismatch(UInt16)
    /// `WireFormat` with no body defined here (§6, §17.2).
    case unknownWireFormat(UInt16)
    /// `ContentType` reserved or unknown (§6).
    case unknownContentType(UInt8)
    /// `SenderType` reserved or unknown (§6).
    case unknownSenderType(UInt8)
    /// `LeafNodeSource` reserved or unknown (§7.2).
    case unknownLeafNodeSource(UInt8)
    /// `NodeType` reserved or unknown (§7.8).
    case unknownNodeType(UInt8)
    /// `ProposalOrRefType` reserved or unknown (§12.4).
    case unknownProposalOrRefType(UInt8)
    /// A proposal type whose body layout is unknown; its body carries no length prefix (§12.1).
    case unknownProposalType(UInt16)
    /// A PrivateMessageContent padding byte at `offset` (within the padding) is not zero (§6.3.1).
    case nonZeroPadding(offset: Int)
    /// A ratchet tree vector that is empty or ends in a blank node (§12.4.3.3).
    case ratchetTreeEndsBlank
    /// A ratchet tree node of the wrong kind for its position (leaves at even indices, §12.4.3.3).
    case ratchetTreeNodeMisplaced(index: Int)
    /// An extension was read through a view of another type (§13.4).
    case extensionTypeMismatch(expected: UInt16, actual: UInt16)
    /// A message's content type does not fit where it appears, e.g. a non-commit in a transcript (§8.2).
    case unexpectedContentType(ContentType)

    public var description: String {
        switch self {
        case .unsupportedVersion(let v): "unsupported protocol version \(v)"
        case .keyPackageVersionMismatch(let v): "KeyPackage version \(v) differs from its MLSMessage's"
        case .unknownWireFormat(let v): "unknown wire format \(v)"
        case .unknownContentType(let v): "unknown content type \(v)"
        case .unknownSenderType(let v): "unknown sender type \(v)"
        case .unknownLeafNodeSource(let v): "unknown leaf node source \(v)"
        case .unknownNodeType(let v): "unknown node type \(v)"
        case .unknownProposalOrRefType(let v): "unknown ProposalOrRef type \(v)"
        case .unknownProposalType(let v): "proposal type \(v) has no known body layout"
        case .nonZeroPadding(let offset): "non-zero padding byte at padding offset \(offset)"
        case .ratchetTreeEndsBlank: "ratchet tree is empty or ends in a blank node"
        case .ratchetTreeNodeMisplaced(let i): "ratchet tree node \(i) is of the wrong kind for its position"
        case .extensionTypeMismatch(let e, let a): "extension type \(a) read as \(e)"
        case .unexpectedContentType(let t): "unexpected content type \(t)"
        }
    }
}

/// Errors building signed or derived structures from values that do not fit together.
public enum MessageEncodingError: Error, Equatable, Sendable {
    /// LeafNodeTBS needs group_id and leaf_index exactly for update and commit sources (§7.2).
    case leafNodeContextMismatch
    /// FramedContentTBS needs the GroupContext exactly for member and new_member_commit senders (§6.1).
    case framedContentContextMismatch
    /// A commit's auth has no confirmation tag where one is needed (§6.1, §8.2).
    case missingConfirmationTag
}
