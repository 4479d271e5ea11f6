import Foundation
import MLS
import Nostr

/// Where a group stands for this account.
public enum GroupStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Joined from a Welcome that the user has not accepted yet (MDK stores such groups as pending).
    case pending
    case active
    /// Left or removed; kept for history.
    case inactive
}

/// A group as the store keeps it. `mlsState` is the group layer's serialized state (secret):
/// whole, or, with `mlsRatchets`, without its secret trees, which are then in `mlsRatchets`
/// (`MLSGroup.serializedApart()`); `name` and `groupDescription` are sealed at rest too.
public struct StoredGroup: Sendable, Hashable, CustomStringConvertible {
    public var mlsGroupID: GroupID
    public var nostrGroupID: NostrGroupID
    public var mlsState: Data
    /// The secret trees of a state stored apart; nil when `mlsState` is whole.
    public var mlsRatchets: Data?
    public var epoch: UInt64
    public var name: String
    public var groupDescription: String
    public var admins: [PublicKey]
    public var relays: [RelayURL]
    /// The other member of a one-to-one chat, if this group is one.
    public var peer: PublicKey?
    public var status: GroupStatus
    public var lastMessageAt: Int64?
    public var unreadCount: Int
    public var createdAt: Int64
    /// The Marmot protocol the group speaks (fixed when it is made or joined).
    public var version: MarmotVersion

    public init(
        mlsGroupID: GroupID, nostrGroupID: NostrGroupID, mlsState: Data, epoch: UInt64, name: String,
        groupDescription: String = "", admins: [PublicKey], relays: [RelayURL], peer: PublicKey? = nil,
        status: GroupStatus = .active, lastMessageAt: Int64? = nil, unreadCount: Int = 0,
        createdAt: Int64 = UnsignedEvent.now(), version: MarmotVersion = .v1
    ) {
        self.version = version
        self.mlsGroupID = mlsGroupID
        self.nostrGroupID = nostrGroupID
        self.mlsState = mlsState
        self.epoch = epoch
        self.name = name
        self.groupDescription = groupDescription
        self.admins = admins
        self.relays = relays
        self.peer = peer
        self.status = status
        self.lastMessageAt = lastMessageAt
        self.unreadCount = unreadCount
        self.createdAt = createdAt
    }

    public var description: String {
        "StoredGroup(\(mlsGroupID), h: \(nostrGroupID.hex), epoch: \(epoch), status: \(status.rawValue), state: redacted)"
    }
}

/// The private half of one of our published KeyPackages, by its ref (the `i` tag).
public struct StoredKeyPackage: Sendable, Hashable, CustomStringConvertible {
    public var ref: KeyPackageRef
    /// The group layer's serialized private keys (init, encryption, signature); sealed at rest.
    public var privateMaterial: Data
    public var dTag: KeyPackageDTag
    /// The kind-30443 event id.
    public var eventID: EventID?
    /// The kind-443 event id.
    public var legacyEventID: EventID?
    public var createdAt: Int64

    public init(
        ref: KeyPackageRef, privateMaterial: Data, dTag: KeyPackageDTag, eventID: EventID? = nil,
        legacyEventID: EventID? = nil, createdAt: Int64 = UnsignedEvent.now()
    ) {
        self.ref = ref
        self.privateMaterial = privateMaterial
        self.dTag = dTag
        self.eventID = eventID
        self.legacyEventID = legacyEventID
        self.createdAt = createdAt
    }

    public var description: String { "StoredKeyPackage(\(ref), d: \(dTag), private: redacted)" }
}

/// What became of an incoming event, recorded by its id so relays' repeats are skipped (MIP-03 §5.5).
public struct ProcessedOutcome: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Applied (message stored, commit merged, proposal stored, welcome recorded).
    public static let processed = ProcessedOutcome(rawValue: "processed")
    /// Valid but deliberately not acted on.
    public static let ignored = ProcessedOutcome(rawValue: "ignored")
    /// Could not be processed; not retried.
    public static let failed = ProcessedOutcome(rawValue: "failed")
    /// Our own published event, seen again.
    public static let own = ProcessedOutcome(rawValue: "own")

    public var description: String { rawValue }
}

/// One processed-event record.
public struct ProcessedEvent: Sendable, Hashable {
    public var eventID: EventID
    public var outcome: ProcessedOutcome
    public var processedAt: Int64
    public var mlsGroupID: GroupID?

    public init(eventID: EventID, outcome: ProcessedOutcome, processedAt: Int64 = UnsignedEvent.now(), mlsGroupID: GroupID? = nil) {
        self.eventID = eventID
        self.outcome = outcome
        self.processedAt = processedAt
        self.mlsGroupID = mlsGroupID
    }
}

/// How far an application message got.
public struct DeliveryState: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Ours, not yet accepted by a relay.
    public static let pending = DeliveryState(rawValue: "pending")
    /// Ours, accepted by at least one relay.
    public static let sent = DeliveryState(rawValue: "sent")
    /// Ours, no relay accepted it.
    public static let failed = DeliveryState(rawValue: "failed")
    /// Someone else's, decrypted from the group.
    public static let received = DeliveryState(rawValue: "received")
    /// Someone else's, decrypted on a branch of the group that lost to a competing one: the members
    /// on the winning branch never had it (issue 24; MDK reports such messages as invalidated).
    public static let invalidated = DeliveryState(rawValue: "invalidated")

    public var description: String { rawValue }
}

/// An application message (the decrypted rumor) in a group; kind, content and tags come from the
/// rumor, and content and tags are sealed at rest.
public struct StoredMessage: Sendable, Hashable {
    public var rumorID: EventID
    public var mlsGroupID: GroupID
    public var sender: PublicKey
    public var kind: Kind
    public var content: String
    public var tags: [Tag]
    public var createdAt: Int64
    public var isMine: Bool
    public var deliveryState: DeliveryState
    /// The kind-445 event that carried it.
    public var outerEventID: EventID?
    /// When it disappears (Unix seconds): its inner created_at plus the group's message retention
    /// when it was sent (v2 component 0x8005); nil when the group keeps messages.
    public var expiresAt: Int64?
    /// The MLS epoch it was read in (others') or encrypted in (ours), on the branch the group was
    /// on then: a branch the group leaves takes its messages after the fork with it (issue 24).
    /// Nil for messages stored before epochs were kept, and for ours not yet encrypted.
    public var epoch: UInt64?
    /// For a deletion: its author was an admin of a group that is not a direct conversation, so it
    /// removes other members' messages too (MDK's moderation grant). Kept by the client beside the
    /// row, not in it; false in rows read straight from the store.
    public var moderationGrant = false
    /// Its pictures and files: the `imeta` references that passed the checks, and whether each one's
    /// content is on this device. Filled in by the client beside the row, not stored in it.
    public var attachments: [MessageAttachment] = []
    /// Ours, in the Notes chat, arrived from a relay: written on another device of this account, so
    /// unread here (issue 29). Set by the client when it stores what it received; not stored.
    public var isNoteFromAnotherDevice = false

    public init(
        rumorID: EventID, mlsGroupID: GroupID, sender: PublicKey, kind: Kind = .chatMessage, content: String,
        tags: [Tag] = [], createdAt: Int64, isMine: Bool, deliveryState: DeliveryState, outerEventID: EventID? = nil,
        expiresAt: Int64? = nil
    ) {
        self.expiresAt = expiresAt
        self.rumorID = rumorID
        self.mlsGroupID = mlsGroupID
        self.sender = sender
        self.kind = kind
        self.content = content
        self.tags = tags
        self.createdAt = createdAt
        self.isMine = isMine
        self.deliveryState = deliveryState
        self.outerEventID = outerEventID
    }

    /// A message from a rumor that passed the author check.
    public init(rumor: ChatRumor, mlsGroupID: GroupID, isMine: Bool, deliveryState: DeliveryState, outerEventID: EventID?) {
        self.init(rumorID: rumor.id, mlsGroupID: mlsGroupID, sender: rumor.author, kind: rumor.kind, content: rumor.content,
                  tags: rumor.tags, createdAt: rumor.createdAt, isMine: isMine, deliveryState: deliveryState,
                  outerEventID: outerEventID)
    }

    /// The position of this message in a newest-first listing.
    public var cursor: MessageCursor { MessageCursor(createdAt: createdAt, rumorID: rumorID) }

    /// Whether it raises its chat's unread count: a chat message (kind 9) or a system line, by
    /// someone else or, in the Notes chat, written on another of our devices.
    ///
    /// The one rule of the store's counter and the core's (architecture review §3.3-b: they were
    /// two, so a restart showed another number): reactions, edits, deletions (issue 25), push-token
    /// gossip (MIP-05), group system events (1210) and kinds the app does not show never count,
    /// as in MDK 0.9.14 (`traits/src/app_event.rs` 46-56, `notifications.rs` 40-42).
    public var countsAsUnread: Bool {
        (deliveryState == .notice || kind == .chatMessage) && (!isMine || isNoteFromAnotherDevice)
    }
}

/// A position in a group's messages, newest first: by created_at, ties broken by rumor id.
public struct MessageCursor: Sendable, Hashable, Codable {
    public var createdAt: Int64
    public var rumorID: EventID

    public init(createdAt: Int64, rumorID: EventID) {
        self.createdAt = createdAt
        self.rumorID = rumorID
    }
}

/// One page of messages, newest first; `nextCursor` fetches the older ones (nil when none are left).
public struct MessagePage: Sendable, Hashable {
    public var messages: [StoredMessage]
    public var nextCursor: MessageCursor?
}

/// A past or current epoch's group-event key, kept so late kind-445 events still open (§5.2).
public struct StoredGroupEventKey: Sendable, Equatable {
    public var epoch: UInt64
    public var key: GroupEventKey
}

/// The columns of a group row that the store itself moves as messages are saved, marked read or
/// expire (plaintext, cheap to read: no sealed value is opened).
public struct GroupActivity: Sendable, Hashable {
    public var lastMessageAt: Int64?
    public var unreadCount: Int

    public init(lastMessageAt: Int64?, unreadCount: Int) {
        self.lastMessageAt = lastMessageAt
        self.unreadCount = unreadCount
    }
}

extension StoredGroup {
    /// The store-moved activity columns of this row.
    public var activity: GroupActivity {
        get { GroupActivity(lastMessageAt: lastMessageAt, unreadCount: unreadCount) }
        set {
            lastMessageAt = newValue.lastMessageAt
            unreadCount = newValue.unreadCount
        }
    }

    /// Keeps `mls` apart (state and secret trees), so an application message rewrites only the
    /// secret trees (`MarmotStore.saveGroupRatchets`; issue 27).
    public mutating func setState(_ mls: MLSGroup) {
        (mlsState, mlsRatchets) = mls.serializedApart()
        epoch = mls.epoch
    }

    /// The MLS group this row holds, whole or apart.
    public func decodedState() throws(GroupError) -> MLSGroup {
        try MLSGroup(serialized: mlsState, ratchets: mlsRatchets)
    }
}
