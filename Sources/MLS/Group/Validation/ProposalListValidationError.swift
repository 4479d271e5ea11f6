import Foundation

/// Why the proposal list of a Commit is invalid (RFC 9420 §12.2, §12.1, §12.4; SelfRemove per
/// draft-ietf-mls-extensions). `position` is the index in the list given to the validator.
public enum ProposalListValidationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The committer of a regular Commit is not a member of the group.
    case committerNotMember(Sender)
    /// A proposal carried by value whose recorded sender is not the committer.
    case inlineProposalFromOtherSender(position: Int)
    /// This sender type may not send this proposal type (§6.1, §12.1.8).
    case senderNotAllowed(ProposalType, Sender)
    /// A member sender whose leaf is blank or outside the tree.
    case senderNotMember(LeafIndex)
    /// An external sender index with no entry in external_senders (§12.1.8.1).
    case unknownExternalSender(UInt32)

    /// An Add whose KeyPackage is invalid for this group (§12.1.1, §10.1).
    case invalidKeyPackage(position: Int, KeyPackageValidationError)
    /// An Add whose KeyPackage shares a signature, init or encryption key with an earlier Add (§12.2).
    case duplicateAdd(position: Int)
    /// An Add for a client already in the group and not removed by this Commit: same signature key
    /// as the member at this leaf (§12.2).
    case addOfExistingMember(LeafIndex)
    /// An Add whose KeyPackage init or encryption key already appears in the tree (§7.3).
    case keyPackageKeyInTree(position: Int)

    /// An Update whose LeafNode is invalid for the member at this leaf (§12.1.2, §7.3).
    case invalidUpdate(LeafIndex, LeafNodeValidationError)
    /// An Update sent by the committer itself (§12.2).
    case updateByCommitter
    /// A Remove of the committer (§12.2).
    case removesCommitter
    /// A SelfRemove sent by the committer, who must leave it to another member.
    case selfRemoveByCommitter
    /// A SelfRemove carried by value; it is only allowed by reference.
    case selfRemoveByValue(position: Int)
    /// A Remove of a blank leaf (§12.1.3).
    case removedLeafBlank(LeafIndex)
    /// A Remove of a leaf outside the tree (§12.1.3).
    case removedLeafOutOfRange(LeafIndex)
    /// More than one Update, Remove or SelfRemove for this leaf (§12.2).
    case conflictingLeafChanges(LeafIndex)

    /// More than one GroupContextExtensions proposal (§12.2).
    case multipleGroupContextExtensions
    /// A GroupContextExtensions proposal the members cannot all support (§12.1.7).
    case invalidGroupContextExtensions(GroupContextExtensionsError)

    /// An AppDataUpdate that cannot be applied: a `remove` of a component with no state, or an
    /// unknown operation (draft-ietf-mls-extensions §AppDataUpdate).
    case invalidAppDataUpdate(position: Int, AppDataUpdateError)
    /// More than one AppDataUpdate for this component id. The draft allows several `update`s of one
    /// component; MDK (the Marmot reference) refuses any second operation, and so does this code.
    case multipleAppDataUpdates(componentID: UInt16)
    /// An AppDataUpdate listed before the GroupContextExtensions proposal, which it must follow
    /// (draft-ietf-mls-extensions; OpenMLS `IncorrectOrder`).
    case appDataUpdateBeforeGroupContextExtensions(position: Int)
    /// A GroupContextExtensions proposal that adds, removes or changes the `app_data_dictionary`
    /// while app_data_update is a required proposal type (before or after the commit); only
    /// AppDataUpdate may change it then (draft-ietf-mls-extensions).
    case groupContextExtensionsChangeAppDataDictionary
    /// The `app_data_dictionary` the AppDataUpdates apply to does not decode.
    case malformedAppDataDictionary

    /// Two PreSharedKey proposals for the same PSK (§12.2); nonces are not compared.
    case duplicatePSK(PreSharedKeyID)
    /// A psk_nonce whose length is not KDF.Nh (§12.1.4).
    case invalidPSKNonce(length: Int)
    /// A resumption PSK with usage reinit or branch outside those operations (§12.1.4).
    case pskUsageNotAllowed(ResumptionPSKUsage)

    /// A ReInit together with any other proposal (§12.2).
    case reInitWithOtherProposals
    /// A ReInit to a version below the group's (§12.1.5).
    case reInitVersionDowngrade(ProtocolVersion)

    /// An ExternalInit in a regular Commit (§12.2).
    case externalInitInRegularCommit
    /// An external Commit without exactly one ExternalInit (§12.2); the count found.
    case externalCommitExternalInitCount(Int)
    /// An external Commit with more than one Remove (§12.2).
    case externalCommitMultipleRemoves
    /// An external Commit with a proposal by reference other than SelfRemove (§12.4.3.2).
    case externalCommitByReference(position: Int)
    /// A proposal type an external Commit may not carry (§12.2).
    case notAllowedInExternalCommit(ProposalType)

    /// A non-default proposal type the member at this leaf, which will process the Commit, does not
    /// support (§12.2).
    case proposalTypeUnsupported(ProposalType, member: LeafIndex)
    /// The Commit has no UpdatePath although its proposals require one (§12.4).
    case pathRequired
    /// Applying the proposals to a copy of the tree failed.
    case tree(TreeError)

    public var description: String {
        switch self {
        case .committerNotMember(let s): "committer \(s) is not a member"
        case .inlineProposalFromOtherSender(let p): "inline proposal \(p) is attributed to a sender other than the committer"
        case .senderNotAllowed(let t, let s): "sender \(s) may not send proposal type \(t)"
        case .senderNotMember(let l): "proposal sender \(l) is not a member"
        case .unknownExternalSender(let i): "no external sender at index \(i)"
        case .invalidKeyPackage(let p, let e): "Add \(p): \(e)"
        case .duplicateAdd(let p): "Add \(p) repeats the keys of an earlier Add"
        case .addOfExistingMember(let l): "Add for the client already at \(l)"
        case .keyPackageKeyInTree(let p): "Add \(p) reuses a key already in the tree"
        case .invalidUpdate(let l, let e): "Update for \(l): \(e)"
        case .updateByCommitter: "the committer may not commit its own Update"
        case .removesCommitter: "the Commit removes its committer"
        case .selfRemoveByCommitter: "the committer may not commit its own SelfRemove"
        case .selfRemoveByValue(let p): "SelfRemove \(p) is carried by value"
        case .removedLeafBlank(let l): "Remove of blank \(l)"
        case .removedLeafOutOfRange(let l): "Remove of \(l) outside the tree"
        case .conflictingLeafChanges(let l): "more than one Update/Remove/SelfRemove for \(l)"
        case .multipleGroupContextExtensions: "more than one GroupContextExtensions proposal"
        case .invalidGroupContextExtensions(let e): "GroupContextExtensions: \(e)"
        case .invalidAppDataUpdate(let p, let e): "AppDataUpdate \(p): \(e)"
        case .multipleAppDataUpdates(let id): "more than one AppDataUpdate for component 0x\(String(id, radix: 16))"
        case .appDataUpdateBeforeGroupContextExtensions(let p): "AppDataUpdate \(p) precedes the GroupContextExtensions proposal"
        case .groupContextExtensionsChangeAppDataDictionary:
            "GroupContextExtensions changes app_data_dictionary while app_data_update is required"
        case .malformedAppDataDictionary: "the group's app_data_dictionary does not decode"
        case .duplicatePSK: "the same PSK is proposed twice"
        case .invalidPSKNonce(let n): "psk_nonce of \(n) bytes"
        case .pskUsageNotAllowed(let u): "resumption PSK usage \(u.rawValue) not allowed here"
        case .reInitWithOtherProposals: "ReInit with other proposals"
        case .reInitVersionDowngrade(let v): "ReInit to lower version \(v.rawValue)"
        case .externalInitInRegularCommit: "ExternalInit in a regular Commit"
        case .externalCommitExternalInitCount(let n): "external Commit has \(n) ExternalInit proposals"
        case .externalCommitMultipleRemoves: "external Commit has more than one Remove"
        case .externalCommitByReference(let p): "external Commit carries proposal \(p) by reference"
        case .notAllowedInExternalCommit(let t): "proposal type \(t) not allowed in an external Commit"
        case .proposalTypeUnsupported(let t, let l): "member at \(l) does not support proposal type \(t)"
        case .pathRequired: "the Commit needs an UpdatePath"
        case .tree(let e): "applying proposals: \(e)"
        }
    }
}
