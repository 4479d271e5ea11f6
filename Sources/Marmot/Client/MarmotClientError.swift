import MLS
import Nostr
import NostrClient

/// Why a `MarmotClient` call failed. Incoming events that cannot be used never throw: they are
/// dropped with a `MarmotClientEvent.dropped` report.
public enum MarmotClientError: Error, Sendable, CustomStringConvertible {
    /// `start()` has not been called, or `stop()` was.
    case notStarted
    /// No relay is configured: key packages and groups need at least one (MIP-00, MIP-01).
    case noRelays
    /// The peer has no usable KeyPackage event (kinds 30443/443) on our relays (MIP-00).
    case noKeyPackage(PublicKey, rejected: [String])
    /// The members of a new group have key packages of different protocol versions only (some v1,
    /// some v2), and one group speaks one version.
    case mixedProtocolVersions
    /// A chat with oneself is not possible.
    case cannotChatWithSelf
    /// No chat with this MLS group id.
    case unknownChat(GroupID)
    /// No message with this id in the chat.
    case unknownMessage(EventID)
    /// The message is not ours or was already delivered, so there is nothing to retry.
    case nothingToRetry(EventID)
    /// The chat is inactive (we were removed); nothing can be sent.
    case chatInactive(GroupID)
    /// No pending invitation for this group.
    case unknownInvite(GroupID)
    /// Only an admin may do this in this group (MIP-03 authorization).
    case notAdmin(GroupID)
    /// Our previous commit in this group is not yet confirmed by a relay; it is resent first.
    case commitPending(GroupID)
    /// No relay accepted the event (per-relay verdicts attached).
    case notPublished(PoolPublishResult)
    /// A commit of ours that our own authorization rule refuses (every peer would drop it).
    case unauthorized(DropReason)
    /// The MLS layer refused the operation.
    case mls(GroupError)
    /// The store failed; nothing was changed in memory.
    case storage(String)
    /// A value could not be built (event signing, encoding).
    case encoding(String)
    /// A picture or file could not be sent or opened (MIP-04, Blossom); the reason says why.
    case media(String)

    public var description: String {
        switch self {
        case .notStarted: "client: not started"
        case .noRelays: "client: no relay configured"
        case .noKeyPackage(let peer, let rejected):
            rejected.isEmpty
                ? "client: no key package from \(peer.hex) found on the relays"
                : "client: no usable key package from \(peer.hex): \(rejected.joined(separator: "; "))"
        case .mixedProtocolVersions: "client: some members have only v1 key packages and others only v2; one group speaks one protocol"
        case .cannotChatWithSelf: "client: cannot create a chat with oneself"
        case .unknownChat(let id): "client: no chat \(id)"
        case .unknownMessage(let id): "client: no message \(id.hex)"
        case .nothingToRetry(let id): "client: message \(id.hex) has nothing to retry"
        case .chatInactive(let id): "client: chat \(id) is inactive"
        case .unknownInvite(let id): "client: no pending invitation for \(id)"
        case .notAdmin(let id): "client: not an admin of \(id)"
        case .commitPending(let id): "client: a commit of ours in \(id) awaits relay confirmation"
        case .notPublished(let result):
            "client: no relay accepted \(result.eventID.hex): "
                + result.failed.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        case .unauthorized(let why): "client: our commit would be refused: \(why)"
        case .mls(let error): "client: MLS: \(error)"
        case .storage(let why): "client: storage: \(why)"
        case .encoding(let why): "client: \(why)"
        case .media(let why): "client: \(why)"
        }
    }
}

/// Why an incoming event was dropped (reported through `MarmotClientEvent.dropped`).
public enum DropReason: Error, Sendable, Equatable, CustomStringConvertible {
    /// Whether the event may open once other events of its group arrive, so it is parked rather
    /// than dropped: it does not decrypt yet (its epoch's commit is still to come), or it is a
    /// commit whose proposal is still to come (relays do not keep a group's order, RFC 9420 §12.4).
    var waitsForOtherEvents: Bool {
        switch self {
        case .undecryptable, .mls(.missingProposal), .heldOnCompetingBranch: true
        default: false
        }
    }

    /// A kind-445 envelope failed validation (§5.5 steps 2-3).
    case invalidGroupEvent(GroupEventError)
    /// A v2 kind-445 event's tags are not exactly `h` and an optional `expiration`.
    case invalidV2GroupEvent(V2GroupEventTagsError)
    /// No group of ours has this `h` value.
    case unknownGroup(NostrGroupID)
    /// The content did not decrypt with the keys of the current and retained epochs.
    case undecryptable
    /// The plaintext is not an MLSMessage of this group.
    case malformedMessage(String)
    /// MLS processing refused the message.
    case mls(GroupError)
    /// The application rumor failed its checks (author, id, tags).
    case invalidRumor(ChatRumorError)
    /// A v2 inner event failed its checks (members, id, sender).
    case invalidV2Rumor(V2InnerEventError)
    /// A commit from a non-admin that is neither a self-update nor a SelfRemove (§5.5 step 6).
    case unauthorizedCommit(String)
    /// A commit for a past epoch lost the race against the applied one (§5.7).
    case lostCommitRace(epoch: UInt64)
    /// A commit for an epoch older than the retained snapshots.
    case staleCommit(epoch: UInt64)
    /// The gift wrap or the Welcome inside it was rejected.
    case invalidWelcome(WelcomeRumorError)
    /// A v2 Welcome rumor was rejected (tags, content).
    case invalidV2Welcome(V2WelcomeError)
    /// The Welcome names none of our stored KeyPackages.
    case noMatchingKeyPackage
    /// Joining from the Welcome failed.
    case joinFailed(String)
    /// The Welcome's sender is not proven: the seal signer is not a member of the group with that
    /// identity, or not one of its admins (MIP-02; MDK refuses such Welcomes too).
    case untrustedWelcome(String)
    /// A competing commit was refused for the race rule: its committer is no longer a member on our
    /// branch, or it would not have been authorized (§5.7 with §5.5 step 6).
    case refusedCompetingCommit(String)
    /// A v2 message that opens only on a branch branch selection has not picked (yet): kept until
    /// more evidence (a deeper commit, other senders' traffic) makes that branch win.
    case heldOnCompetingBranch(String)
    /// The engine already keeps as many of these as it may (`EngineLimits`): dropped so nobody can
    /// grow what a device keeps (D2, N5).
    case limitReached(String)
    /// An application message of a past epoch from a member the group removed since: MLS still
    /// opens it (RFC 9420 §14, retained epochs), but it is not shown, so a removed member cannot
    /// keep posting, or flood our store, from its last epochs (security review D8, issue 43).
    case senderRemoved(epoch: UInt64)
    /// The store failed while recording the outcome.
    case storage(String)

    public var description: String {
        switch self {
        case .invalidGroupEvent(let e): "\(e)"
        case .invalidV2GroupEvent(let e): "\(e)"
        case .invalidV2Rumor(let e): "\(e)"
        case .invalidV2Welcome(let e): "\(e)"
        case .unknownGroup(let id): "no group with h \(id.hex)"
        case .undecryptable: "group event does not decrypt with any retained epoch key"
        case .malformedMessage(let why): "malformed MLS message: \(why)"
        case .mls(let e): "MLS: \(e)"
        case .invalidRumor(let e): "\(e)"
        case .unauthorizedCommit(let why): "commit not allowed: \(why)"
        case .lostCommitRace(let epoch): "competing commit for epoch \(epoch) lost against the applied one"
        case .staleCommit(let epoch): "commit for epoch \(epoch) is older than the retained snapshots"
        case .invalidWelcome(let e): "\(e)"
        case .noMatchingKeyPackage: "welcome is not addressed to any of our key packages"
        case .joinFailed(let why): "cannot join: \(why)"
        case .untrustedWelcome(let why): "welcome refused: \(why)"
        case .refusedCompetingCommit(let why): "competing commit refused: \(why)"
        case .heldOnCompetingBranch(let why): "held on a competing branch: \(why)"
        case .limitReached(let why): "dropped at a limit: \(why)"
        case .senderRemoved(let epoch): "message of epoch \(epoch) from a member removed since"
        case .storage(let why): "storage: \(why)"
        }
    }
}
