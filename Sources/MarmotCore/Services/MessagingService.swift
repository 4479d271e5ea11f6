import Foundation
import Nostr

/// What the core needs from the messaging layer (Marmot groups over Nostr relays), per session.
///
/// The core owns state and policy; a service owns protocol, storage and network. One service is
/// made per logged-in session by `AppConfiguration.messagingServiceFactory`, started once, and
/// stopped on logout. The core calls it only from detached tasks, never from its actor, so a slow
/// call never delays other actions; calls for different chats may run concurrently.
///
/// Errors thrown here become toasts or `MessageDeliveryState.failed(reason:)` carrying the error's
/// description, so descriptions must be short, user-readable and free of secrets and message text.
public protocol MessagingService: Sendable {
    /// Opens storage, connects to relays, publishes key packages and subscribes (welcomes and group
    /// messages). Returns the stream of everything that happens afterwards; the stream finishes when
    /// the service stops. The stream must report `invitesChanged` once and `syncStatus(.live)` when the
    /// start-up catch-up is over (even if it failed): until then the core says "catching up" and
    /// one-shot commands wait.
    func start() async throws -> AsyncStream<MessagingEvent>

    /// Every chat known to this account, from storage, each with its newest message.
    func listChats() async throws -> [ChatInfo]

    /// Creates a 1:1 chat with `peer` (fetches their key package, creates the group, sends the
    /// welcome) and returns it. The core has already checked that `peer` is not the account itself.
    /// `relayHints` (an nprofile's relays, NIP-19) are read too when looking for the peer.
    func createChat(with peer: PublicKey, relayHints: [URL]) async throws -> ChatInfo

    /// Replaces the session's relays (publishing, reading, relay lists); returns once in effect.
    func setRelays(_ urls: [URL]) async throws

    /// Publishes this account's name (kind 0) and returns it as published (cleaned up).
    func setProfileName(_ name: String) async throws -> String

    /// Creates a named group with `members` (each must have a key package) and invites them.
    func createGroup(name: String, members: [PublicKey]) async throws -> ChatInfo

    /// Changes a group we administer and returns the chat as it is after the change (nil when it
    /// cannot be described), so a caller reading the chat after the outcome sees the change (issue 30).
    func changeGroup(_ chatID: ChatID, _ change: GroupChange) async throws -> ChatInfo?

    /// Invitations received and not yet answered, newest first. Changes arrive as `invitesChanged`.
    func listInvites() async throws -> [InviteInfo]

    /// Joins the group an invitation is for and returns the chat.
    func acceptInvite(_ id: InviteID) async throws -> ChatInfo

    /// Refuses an invitation; nothing of its group is kept.
    func declineInvite(_ id: InviteID) async throws

    /// Stores `message` durably as pending (the outbox) under `message.id`, without publishing it.
    /// The core shows a message as pending only after this returned, so a crash from then on cannot
    /// lose it: the service sends unsent messages again when it next starts.
    func queue(_ message: OutgoingMessage) async throws

    /// Encrypts and publishes `message` (queued first if it was not), storing it under `message.id` so
    /// later pages return the same id. Returns once the outcome is known; throwing means `failed`
    /// with the error's description.
    func send(_ message: OutgoingMessage) async throws -> DeliveryOutcome

    /// Publishes a message again after a failure, under the same id (it may or may not have been
    /// stored by the failed `send`).
    func retry(_ message: OutgoingMessage) async throws -> DeliveryOutcome

    /// Up to `limit` messages of a chat, oldest first, all older than `before` (the newest page when
    /// `before` is nil).
    func loadMessages(chatID: ChatID, before: MessageID?, limit: Int) async throws -> MessagePage

    /// The bytes of attachment `index` of a message: from this device when here, else downloaded,
    /// checked and decrypted (MIP-04, BUD-01), then kept sealed.
    func attachmentData(chatID: ChatID, messageID: MessageID, index: Int) async throws -> Data

    /// The bytes of a chat's group picture: from this device, else downloaded, checked and
    /// decrypted by the messaging layer.
    func chatImageData(chatID: ChatID) async throws -> Data

    /// The Blossom servers files are uploaded to, and whether the user named them (else they are
    /// derived from the relays).
    func blossomServers() async -> (servers: [URL], named: Bool)

    /// Replaces the user's Blossom servers (empty: back to the relay-derived ones) and publishes the
    /// list (BUD-03 kind 10063).
    func setBlossomServers(_ urls: [URL]) async throws

    /// Records that the user has seen everything in the chat, so `ChatInfo.unreadCount` is 0 next time.
    func markRead(chatID: ChatID) async throws

    /// The messages the chat's stored unread count stands for, oldest first in store order (the order
    /// they were received): what `marmot listen` prints at start (issue 51).
    func unreadMessages(chatID: ChatID) async throws -> [MessageRecord]

    /// Reconnects relays that dropped (for example while the app was in the background); the
    /// subscriptions then catch up on what was missed.
    func reconnect() async

    /// Closes subscriptions, relay connections and storage; finishes the event stream. Idempotent.
    func stop() async

    /// This account's Notes chat, made on first use (a group of only this account's devices).
    func openNotes() async throws -> ChatInfo

    /// This account's devices: those in the Notes chat (this one marked) and those waiting to be
    /// linked (key packages of this account from other installations).
    func devices() async throws -> [DeviceInfo]

    /// Adds a waiting device to the Notes chat; returns the devices as they are after.
    func linkDevice(_ id: String) async throws -> [DeviceInfo]

    /// Removes a device's leaf from every group this device may remove it from (Notes always,
    /// other groups where our account is admin); returns the devices as they are after and what
    /// each group made of it.
    func removeDevice(_ id: String) async throws -> (devices: [DeviceInfo], groups: [DeviceGroupOutcome])

    /// Adds this account's other linked devices to a chat we administer (an ordinary Add);
    /// returns the ids of the devices added.
    func addMyDevices(chatID: ChatID) async throws -> [String]

    /// Keeps what the user chose for a chat (muted, archived) on this device, so `listChats` returns
    /// it after a restart (`ChatInfo.preferences`); nothing is sent to anyone (issue 48).
    func setChatPreferences(_ preferences: ChatPreferences, chatID: ChatID) async throws

    /// The people this account blocked, longest blocked first (issue 48).
    func blockedPeople() async throws -> [BlockedPerson]

    /// Blocks (from `at`, Unix seconds) or unblocks `person` on this device; nothing is sent to anyone.
    func setBlocked(_ person: PublicKey, blocked: Bool, at: Int64) async throws
}

/// A messaging layer without linked devices (test doubles): every device call is refused.
extension MessagingService {
    public func openNotes() async throws -> ChatInfo { throw DevicesUnsupported() }
    public func devices() async throws -> [DeviceInfo] { throw DevicesUnsupported() }
    public func linkDevice(_ id: String) async throws -> [DeviceInfo] { throw DevicesUnsupported() }
    public func removeDevice(_ id: String) async throws -> (devices: [DeviceInfo], groups: [DeviceGroupOutcome]) {
        throw DevicesUnsupported()
    }
    public func addMyDevices(chatID: ChatID) async throws -> [String] { throw DevicesUnsupported() }
}

/// What one chat made of a device removal (issue 29: the leaf leaves every group we may remove it from).
public struct DeviceGroupOutcome: Sendable, Equatable {
    public enum Status: String, Sendable, Equatable {
        /// The device's leaf was removed.
        case removed
        /// The device is in the chat but we are no admin there (MIP-03; v2 authorization).
        case notAllowed = "not_allowed"
        /// The removal commit failed (`reason`).
        case failed
    }

    public var chatID: ChatID
    public var isNotes: Bool
    public var status: Status
    /// Why it failed; empty otherwise.
    public var reason: String

    public init(chatID: ChatID, isNotes: Bool, status: Status, reason: String = "") {
        self.chatID = chatID
        self.isNotes = isNotes
        self.status = status
        self.reason = reason
    }
}

/// The messaging layer has no Notes chat or linked devices.
public struct DevicesUnsupported: Error, Sendable, CustomStringConvertible {
    public init() {}
    public var description: String { "Notes and devices are not available" }
}

/// One installation of this account (issue 29): its own MLS leaf under the account's npub.
public struct DeviceInfo: Sendable, Equatable, Identifiable {
    /// Short and stable: the first 16 hex digits of the device's MLS signature key.
    public var id: String
    public var name: String
    /// Unix seconds it joined the Notes chat, when known.
    public var addedAt: Int64?
    public var isThisDevice: Bool
    /// False: it published a key package and waits to be linked (`AppAction.linkDevice`).
    public var isLinked: Bool

    public init(id: String, name: String, addedAt: Int64?, isThisDevice: Bool, isLinked: Bool) {
        self.id = id
        self.name = name
        self.addedAt = addedAt
        self.isThisDevice = isThisDevice
        self.isLinked = isLinked
    }
}

/// What the service is given for one session.
///
/// Holds the session's keys (the service signs, and decrypts NIP-59 gift wraps, with them); prints
/// only the public key.
public struct SessionContext: Sendable, CustomStringConvertible {
    public let keys: Keys
    /// `<dataDirectory>/<pubkey hex>/`, created by the core before the service is made.
    public let accountDirectory: URL
    /// Relays to use; empty means the platform or CLI's embedded relay.
    public let relayURLs: [URL]
    public let clock: AppClock
    /// This installation's secret (`AppConfiguration.installationSecret`), which salts the key of the
    /// session's encrypted store; never printed.
    public let installationSecret: InstallationSecret?

    public init(
        keys: Keys, accountDirectory: URL, relayURLs: [URL], clock: AppClock, installationSecret: InstallationSecret? = nil
    ) {
        self.keys = keys
        self.accountDirectory = accountDirectory
        self.relayURLs = relayURLs
        self.clock = clock
        self.installationSecret = installationSecret
    }

    public var description: String {
        "SessionContext(pubkey: \(keys.publicKey.hex), directory: \(accountDirectory.path), relays: \(relayURLs.count))"
    }
}

/// Something that happened in the messaging layer without the core asking.
public enum MessagingEvent: Sendable, Equatable {
    /// A chat appeared (a welcome was accepted) or its details changed; replaces what the core knows
    /// of the chat, except that unread counts are the core's.
    case chatUpdated(ChatInfo)
    /// Others' messages turned out to belong to an abandoned branch of the group (a competing
    /// change won); they stay, marked.
    case messagesInvalidated(chatID: ChatID, messageIDs: [MessageID])
    /// Messages reached their expiry (disappearing messages) and were deleted from the store.
    case messagesExpired(chatID: ChatID, messageIDs: [MessageID])
    /// Joining an accepted chat is complete (its history read, the new member's key update made or
    /// owed); see `BusyState.finishingJoins`.
    case joinSettled(ChatID)
    /// A message was decrypted, from the peer or (echoed or from another device) from this account.
    case messageReceived(MessageRecord)
    /// A later outcome for an outgoing message (e.g. a relay acknowledged it after `send` returned).
    case deliveryChanged(chatID: ChatID, messageID: MessageID, outcome: DeliveryOutcome)
    /// How much of an outgoing message's attachments has been uploaded, in whole percent.
    case uploadProgress(chatID: ChatID, messageID: MessageID, percent: Int)
    /// Relay connectivity changed.
    case relayStatus(RelayStatus)
    /// The session's key package publication ended: accepted by at least one relay, or not.
    case keyPackagePublished(Bool)
    /// The pending invitations, in full, whenever one arrives or is answered. The first one of a
    /// session also tells the core that invitations have been listed.
    case invitesChanged([InviteInfo])
    /// How far the start-up catch-up with the relays has got (issue 16): the core shows "live" once
    /// this says `.live` and the stored chats are listed, and one-shot commands wait for that.
    case syncStatus(MessagingSyncStatus)
    /// This account's profile name as this device cached it, before the relays were asked.
    case ownProfileName(String?)
    /// This account's profile name once the look-up on the relays ended (the cached one when they
    /// had nothing newer).
    case ownProfileLookedUp(String?)
}

/// The messaging layer's catch-up with its relays after `start()`.
public enum MessagingSyncStatus: String, Sendable, Equatable {
    /// Subscribed; stored events are being read.
    case catchingUp = "catching_up"
    /// Stored events have been handled (or the wait for them timed out); new events arrive live.
    case live
}

/// A change to a group's membership or data (MIP-01/03; admins only, except leaving).
public enum GroupChange: Sendable, Equatable {
    case add([PublicKey])
    case remove(PublicKey)
    case rename(String)
    case setAdmin(PublicKey, Bool)
    /// How long messages live, in seconds; 0 keeps them (v2 chats only).
    case setRetention(UInt64)
    /// Sets the group picture (PNG, JPEG, GIF or WebP; a nil type is read from the bytes).
    case setImage(Data, mediaType: String?)
    /// Removes the group picture.
    case clearImage
    /// Closes the group for every member, for good (v2 chats only).
    case disband
    case leave
}

/// An invitation to a chat as the messaging layer keeps it: who sent it (proven by its signature)
/// and what the group looks like.
public struct InviteInfo: Sendable, Equatable {
    public var inviteID: InviteID
    public var inviter: PublicKey
    /// The group's name; empty for an unnamed chat.
    public var groupName: String
    /// Members at the time of the invitation, ourselves included.
    public var memberCount: Int
    /// Unix seconds.
    public var receivedAt: Int64

    public init(inviteID: InviteID, inviter: PublicKey, groupName: String, memberCount: Int, receivedAt: Int64) {
        self.inviteID = inviteID
        self.inviter = inviter
        self.groupName = groupName
        self.memberCount = memberCount
        self.receivedAt = receivedAt
    }
}

/// What a membership change did, as a chat shows it in a system line.
public enum MembershipChange: String, Sendable, Equatable {
    case added
    case removed
    case left
    /// `actor` renamed the group (the subject is the actor).
    case renamed
    /// `actor` made `subject` an admin.
    case promoted
    /// `actor` took admin rights from `subject` (itself: stepped down).
    case demoted
    /// `actor` invited `subject` back into a group it had left or been removed from (MDK's
    /// `readd-after-eviction`), and `subject` accepted.
    case readded
    /// `actor` changed how long messages live (the subject is the actor; the chat shows the value).
    case retentionChanged
    /// `actor` closed the group for good (the subject is the actor).
    case disbanded
    /// `actor` set, replaced or removed the group picture (the subject is the actor).
    case pictureChanged
}

/// A system line: `actor` added or removed `subject`, or `subject` left.
public struct MembershipNotice: Sendable, Equatable {
    public var change: MembershipChange
    public var actor: PublicKey
    public var subject: PublicKey

    public init(change: MembershipChange, actor: PublicKey, subject: PublicKey) {
        self.change = change
        self.actor = actor
        self.subject = subject
    }
}

/// A chat as the messaging layer stores it.
public struct ChatInfo: Sendable, Equatable {
    public var chatID: ChatID
    /// The other member shown for the chat: the 1:1 peer, else the first other member, else the
    /// member who was the peer before leaving.
    public var peer: PublicKey
    public var peerName: String?
    /// Unix seconds when the chat was created or joined; orders chats that have no messages.
    public var createdAt: Int64
    public var lastMessage: MessageRecord?
    public var unreadCount: UInt32
    /// The current members other than this account, from the group's membership.
    public var members: [PublicKey]
    /// True while this is a proven 1:1 chat with `peer` (we invited them, or their signed invitation
    /// brought us in) and its members are exactly the two of us; only such a chat is reused for
    /// "new chat with `peer`".
    public var isDirect: Bool
    /// The group's name; empty when unnamed.
    public var groupName: String
    /// The group's admins (they alone add, remove and rename).
    public var admins: [PublicKey]
    /// The Marmot protocol version the group speaks, fixed when it was made (issue 18).
    public var protocolVersion: ChatProtocolVersion
    /// False once this account left or was removed: the chat stays readable, nothing can be sent
    /// (MIP-03: a removed member holds no key of the group's later epochs).
    public var isMember: Bool = true
    /// How long messages live, in seconds; 0 keeps them (disappearing messages, v2 only).
    public var retentionSeconds: UInt64 = 0
    /// Names the group's current picture (its blob id), or nil when it has none; a new value means
    /// a new picture.
    public var imageID: String?
    /// Whether that picture's bytes are on this device.
    public var imageIsHere = false
    /// This account's Notes chat: a group of only its own devices (issue 29); `peer` is ourselves.
    public var isNotes = false
    /// How many devices (MLS leaves) each member account has, this account included (issue 29:
    /// one person, N devices); an account missing here has one.
    public var deviceCounts: [PublicKey: Int] = [:]
    /// Whether the group has settled on one history after competing changes (issue 24).
    public var convergence: ChatConvergence = .settled
    /// What the user chose for the chat on this device (muted, archived; issue 48). Like unread
    /// counts, the core takes it from the service for a chat it has not seen, then keeps its own.
    public var preferences = ChatPreferences()

    public init(
        chatID: ChatID, peer: PublicKey, peerName: String? = nil, createdAt: Int64,
        lastMessage: MessageRecord? = nil, unreadCount: UInt32 = 0, members: [PublicKey]? = nil,
        isDirect: Bool = true, groupName: String = "", admins: [PublicKey] = [],
        protocolVersion: ChatProtocolVersion = .v1
    ) {
        self.protocolVersion = protocolVersion
        self.admins = admins
        self.chatID = chatID
        self.peer = peer
        self.peerName = peerName
        self.createdAt = createdAt
        self.lastMessage = lastMessage
        self.unreadCount = unreadCount
        self.members = members ?? [peer]
        self.isDirect = isDirect
        self.groupName = groupName
    }
}

/// A message as the messaging layer stores it.
public struct MessageRecord: Sendable, Equatable {
    public var id: MessageID
    public var chatID: ChatID
    public var sender: PublicKey
    public var content: String
    /// Unix seconds.
    public var createdAt: Int64
    /// Received messages are `sent`; own messages carry their last known outcome.
    public var delivery: MessageDeliveryState
    /// Set for a system line (a membership change); `content` is then not shown.
    public var notice: MembershipNotice?
    /// Someone else's message from a branch of the group that lost to a competing one: the other
    /// members never had it.
    public var invalidated = false
    /// For a deletion: its author held the moderation grant (an admin of a group that is not a
    /// direct conversation), so it removes other members' messages too.
    public var moderated = false
    /// A text, or a reaction, edit or deletion of other messages (see `MessageRole`).
    public var role: MessageRole = .text
    /// For a reply (a text with a `q`/`e` tag): the message it answers.
    public var replyTo: MessageID?
    /// People the text mentions (its `p` tags, NIP-27), so renderers can highlight them.
    public var mentions: [PublicKey] = []
    /// Pictures and files it carries (MIP-04 `imeta` references that passed the checks).
    public var attachments: [AttachmentInfo] = []

    public init(
        id: MessageID, chatID: ChatID, sender: PublicKey, content: String, createdAt: Int64,
        delivery: MessageDeliveryState = .sent, notice: MembershipNotice? = nil, role: MessageRole = .text,
        replyTo: MessageID? = nil, mentions: [PublicKey] = []
    ) {
        self.role = role
        self.replyTo = replyTo
        self.mentions = mentions
        self.id = id
        self.chatID = chatID
        self.sender = sender
        self.content = content
        self.createdAt = createdAt
        self.delivery = delivery
        self.notice = notice
    }
}

/// A message composed on this device, with the id and timestamp the core gave it.
public struct OutgoingMessage: Sendable, Equatable {
    public var id: MessageID
    public var chatID: ChatID
    public var content: String
    /// Unix seconds.
    public var createdAt: Int64
    /// A text, or a reaction, edit or deletion of other messages (targets are core message ids).
    public var role: MessageRole = .text
    /// For a reply: the message it answers.
    public var replyTo: MessageID?
    /// A file sent with it (the content is then its caption, possibly empty).
    public var attachment: OutgoingAttachment?

    public init(
        id: MessageID, chatID: ChatID, content: String, createdAt: Int64, role: MessageRole = .text,
        replyTo: MessageID? = nil
    ) {
        self.role = role
        self.replyTo = replyTo
        self.id = id
        self.chatID = chatID
        self.content = content
        self.createdAt = createdAt
    }
}

/// How sending a message ended.
public enum DeliveryOutcome: Sendable, Equatable {
    case sent
    case failed(reason: String)
}

/// One page of history, oldest first.
public struct MessagePage: Sendable, Equatable {
    public var messages: [MessageRecord]
    /// Whether messages older than the first one of this page exist.
    public var hasOlder: Bool

    public init(messages: [MessageRecord], hasOlder: Bool) {
        self.messages = messages
        self.hasOlder = hasOlder
    }
}

/// Relay connectivity, summed over the session's relays.
public struct RelayStatus: Sendable, Equatable {
    public var connected: Int
    public var total: Int
    /// Each relay's URL and whether it is connected.
    public var relays: [String: Bool]
    /// Each relay's connection state and last activity, when the service knows them (issue 17);
    /// a relay missing here is shown from `relays` alone.
    public var details: [String: RelayDetail]
    /// Relays the user did not choose that the layer uses because chats name them (issue 26), each
    /// with those chats; their connection is in `relays` and `details` like the user's own.
    public var groupRelays: [GroupRelayOrigin]

    public init(
        connected: Int, total: Int, relays: [String: Bool] = [:], details: [String: RelayDetail] = [:],
        groupRelays: [GroupRelayOrigin] = []
    ) {
        self.connected = connected
        self.total = total
        self.relays = relays
        self.details = details
        self.groupRelays = groupRelays
    }
}

/// A relay in use that the user did not choose, and the chats whose group data name it (issue 26).
public struct GroupRelayOrigin: Sendable, Equatable {
    public var url: String
    public var chats: [ChatID]

    public init(url: String, chats: [ChatID]) {
        self.url = url
        self.chats = chats
    }
}

/// One relay's connection as the messaging layer sees it: the state, and when the relay last sent
/// anything (Unix seconds).
public struct RelayDetail: Sendable, Equatable {
    public var state: RelayEntry.State
    public var lastEventAt: Int64?
    /// Since when the relay has been down (Unix seconds), nil unless failing.
    public var downSince: Int64?
    /// NIP-42 authentication on the current connection.
    public var auth: RelayEntry.Auth

    public init(state: RelayEntry.State, lastEventAt: Int64? = nil, downSince: Int64? = nil, auth: RelayEntry.Auth = .notAsked) {
        self.state = state
        self.lastEventAt = lastEventAt
        self.downSince = downSince
        self.auth = auth
    }
}
