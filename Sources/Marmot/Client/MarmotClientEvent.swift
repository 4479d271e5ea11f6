import Foundation
import MLS
import Nostr
import NostrClient

/// A chat (an MLS group with its Marmot data) as the app shows it.
public struct Chat: Sendable, Hashable, Identifiable {
    /// The MLS group id: the chat's local identity (never published).
    public let id: GroupID
    /// The `h` value of its kind-445 events.
    public let nostrGroupID: NostrGroupID
    public let name: String
    public let groupDescription: String
    /// The other member of a one-to-one chat: the peer proven when the chat began (we invited them,
    /// or their sealed Welcome invited us), and only while the members are exactly that peer and us.
    /// Derived from the current membership, so a chat whose peer left or that grew has none; one
    /// account with several devices (leaves) counts once (issue 29).
    public let peer: PublicKey?
    /// The peer proven when the chat began, even after it left (for showing who the chat was with).
    public let provenPeer: PublicKey?
    /// Current members' Nostr identities, by leaf order: an account with several devices (issue 29)
    /// is here once per leaf.
    public let members: [PublicKey]
    public let admins: [PublicKey]
    public let relays: [RelayURL]
    public let epoch: UInt64
    public let status: GroupStatus
    public let lastMessageAt: Int64?
    public let unreadCount: Int
    public let createdAt: Int64
    /// The Marmot protocol the chat speaks (renderers show it; nothing else depends on it).
    public let version: MarmotVersion
    /// How long its messages live, in seconds; 0 keeps them (v2 component 0x8005).
    public let retention: UInt64
    /// The group picture its group data names (v1 image fields, v2 0x8002), or nil; its bytes come
    /// from `MarmotClient.groupImageContent`.
    public let image: GroupImage?
    /// The group picture by https address (v2 0x8007), or nil.
    public let avatarURL: URL?

    /// A chat from its stored row and current members (for previews and test doubles).
    public init(stored: StoredGroup, members: [PublicKey], retention: UInt64 = 0, image: GroupImage? = nil, avatarURL: URL? = nil) {
        self.retention = retention
        self.image = image
        self.avatarURL = avatarURL
        id = stored.mlsGroupID
        nostrGroupID = stored.nostrGroupID
        name = stored.name
        groupDescription = stored.groupDescription
        provenPeer = stored.peer
        peer = stored.peer.flatMap { proven in
            members.isEmpty || (Set(members).count == 2 && members.contains(proven)) ? proven : nil
        }
        self.members = members
        admins = stored.admins
        relays = stored.relays
        epoch = stored.epoch
        status = stored.status
        lastMessageAt = stored.lastMessageAt
        unreadCount = stored.unreadCount
        createdAt = stored.createdAt
        version = stored.version
    }
}

/// What `createChat` did.
public struct ChatCreation: Sendable, Hashable {
    public let chat: Chat
    /// False when a chat with this peer already existed and was returned as is.
    public let isNew: Bool
    /// Per-relay verdicts for the gift-wrapped Welcome (nil for an existing chat; for a group, the
    /// first invitee's).
    public let welcome: PoolPublishResult?
    /// Per-relay verdicts for each invitee's Welcome (`createGroup`; empty for an existing chat).
    public let welcomes: [PublicKey: PoolPublishResult]

    public init(chat: Chat, isNew: Bool, welcome: PoolPublishResult?, welcomes: [PublicKey: PoolPublishResult] = [:]) {
        self.chat = chat
        self.isNew = isNew
        self.welcome = welcome
        self.welcomes = welcomes
    }
}

/// What `send` did: the stored message (delivery `.sent` or `.failed`) and the relays' verdicts.
public struct SentMessage: Sendable, Hashable {
    public let message: StoredMessage
    public let publish: PoolPublishResult

    public init(message: StoredMessage, publish: PoolPublishResult) {
        self.message = message
        self.publish = publish
    }

    /// The stable local id of the message: its rumor id.
    public var id: EventID { message.rumorID }
}

/// What `publishKeyPackage` published.
public struct KeyPackagePublication: Sendable, Hashable {
    /// The KeyPackageRef (`i` tag) the private keys are stored under.
    public let ref: KeyPackageRef
    public let dTag: KeyPackageDTag
    /// The event peers find the key package by: kind 30443 for v2, and for v1 kind 443 when v2 is
    /// published beside it (kind 30443 is then v2's alone), else kind 30443.
    public let event: PoolPublishResult
    /// v1's kind-443 twin of its kind-30443 event, when v1 is published alone (MDK 0.8.0's dual
    /// publishing); nil otherwise.
    public let twin: PoolPublishResult?
    /// The protocol the key package is for.
    public let version: MarmotVersion

    public init(
        ref: KeyPackageRef, dTag: KeyPackageDTag, event: PoolPublishResult, twin: PoolPublishResult?,
        version: MarmotVersion = .v1
    ) {
        self.ref = ref
        self.dTag = dTag
        self.event = event
        self.twin = twin
        self.version = version
    }

    /// At least one relay holds the key package's event.
    public var isPublished: Bool { event.isSent }
}

/// What one of our own commits did.
public struct CommitOutcome: Sendable, Hashable {
    public let chat: Chat
    /// The epoch the commit started.
    public let epoch: UInt64
    public let publish: PoolPublishResult

    public init(chat: Chat, epoch: UInt64, publish: PoolPublishResult) {
        self.chat = chat
        self.epoch = epoch
        self.publish = publish
    }
}

/// Something that happened in the background (incoming events, delivery of our messages).
public enum MarmotClientEvent: Sendable, Equatable {
    /// A Welcome from a proven admin member arrived; it waits for `acceptInvite` or `declineInvite`.
    case inviteReceived(Invite)
    /// Invitations nobody answered in time were declined (`Options.inviteMaxAge`).
    case invitesExpired([GroupID])
    /// We joined a group from a gift-wrapped Welcome (after accepting it); `inviter` sealed it.
    case welcomeJoined(Chat, inviter: PublicKey)
    /// The join of an accepted group is complete: its stored events were read and the post-join
    /// self-update MIP-02 asks of a new member was made (or, when it could not be published, is owed
    /// until a later start). Lets a short-lived renderer (the CLI) exit only once a join is done.
    case joinSettled(Chat)
    /// A commit added or removed members; the notice is also stored as a message of the chat.
    case membershipChanged(Chat, StoredMessage)
    /// A member's application message was decrypted and stored.
    case messageReceived(Chat, StoredMessage)
    /// Our message's delivery state changed (`.sent` or `.failed`).
    case deliveryChanged(Chat, StoredMessage)
    /// How much of the media of our pending message `rumorID` has gone to its Blossom server, in
    /// whole percent, as the upload goes (each value at most once, increasing).
    case uploadProgress(chat: GroupID, rumorID: EventID, percent: Int)
    /// A commit moved the chat to `epoch` (ours or another member's; also after a race roll-back).
    case commitApplied(Chat, epoch: UInt64, committer: PublicKey?)
    /// Others' messages of the chat turned out to belong to a branch the group abandoned for a
    /// competing one; they are kept, marked `.invalidated`.
    case messagesInvalidated(Chat, [EventID])
    /// Messages of the chat reached their expiry (disappearing messages) and were deleted.
    case messagesExpired(Chat, [EventID])
    /// The chat's convergence status changed (`MarmotClient.convergence(of:)`): events wait, a
    /// commit of ours is unconfirmed, a competing history cannot be weighed, or all is settled again.
    case convergenceChanged(Chat, ConvergenceStatus)
    /// An incoming event was dropped; the client keeps running and stored data is unchanged.
    case dropped(eventID: EventID, reason: DropReason)
    /// Every start-up subscription's stored events were handled (`caughtUp()`); reported once per
    /// start, after the events those stored events caused, so a consumer that sees it has them all.
    case caughtUp
    /// A background step failed (for example the post-join self-update could not be published).
    case failure(chat: GroupID?, reason: String)
    /// The relays in our pool that we did not choose changed (a group brought or dropped one; issue
    /// 26): now these, each with the active groups naming it.
    case groupRelaysChanged([GroupRelayPlan.ForeignRelay])
}
