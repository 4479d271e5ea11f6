import Foundation
import MLS
import Nostr

/// Persistence of one account's Marmot state: groups with their serialized MLS state, the private
/// halves of published KeyPackages, processed event ids, messages, per-epoch group-event keys and
/// account settings. Secret values are sealed at rest by the implementation.
///
/// Errors are `StorageError`.
public protocol MarmotStore: Sendable {
    // MARK: Groups

    /// Inserts or replaces the group with this MLS group id (its messages are kept).
    func saveGroup(_ group: StoredGroup) throws
    /// Replaces only the secret trees of a group stored apart (`StoredGroup.mlsRatchets` set): what
    /// an application message changes (issue 27). Fails for a group stored whole or absent.
    func saveGroupRatchets(mlsGroupID: GroupID, ratchets: Data) throws
    func group(mlsGroupID: GroupID) throws -> StoredGroup?
    /// A group's last-message time and unread count alone, without opening its sealed values.
    func groupActivity(mlsGroupID: GroupID) throws -> GroupActivity?
    /// The group whose current `h` value is this id (kind-445 routing).
    func group(nostrGroupID: NostrGroupID) throws -> StoredGroup?
    /// All groups, most recent activity first.
    func groups() throws -> [StoredGroup]
    /// Deletes the group with its messages and epoch keys.
    func deleteGroup(mlsGroupID: GroupID) throws
    /// Sets the unread count to zero.
    func markGroupRead(mlsGroupID: GroupID) throws

    // MARK: Messages

    /// Stores a message; when it is new, the group's last-message time advances and, if it is not
    /// ours, its unread count grows. Storing the same rumor again only updates it.
    func saveMessage(_ message: StoredMessage) throws
    func message(mlsGroupID: GroupID, rumorID: EventID) throws -> StoredMessage?
    /// Newest first, `limit` per page (default 50), strictly older than `before` when given.
    func messages(mlsGroupID: GroupID, before: MessageCursor?, limit: Int) throws -> MessagePage
    func updateDeliveryState(mlsGroupID: GroupID, rumorID: EventID, state: DeliveryState, outerEventID: EventID?) throws
    /// Our messages of the group not yet accepted by a relay (`.pending` or `.failed`), oldest first:
    /// the outbox a restart resumes.
    func unsentMessages(mlsGroupID: GroupID) throws -> [StoredMessage]
    /// The group's messages of epochs after `afterEpoch`, not invalidated, oldest first.
    func messages(mlsGroupID: GroupID, afterEpoch: UInt64) throws -> [StoredMessage]
    /// Deletes every message that expired at or before `time`, leaving nothing of them in the
    /// database file or its write-ahead log, and returns them.
    func deleteExpiredMessages(at time: Int64) throws -> [StoredMessage]
    /// The earliest time a stored message expires, if any does.
    func nextMessageExpiry() throws -> Int64?
    /// Removes one message for good (its author deleted it, NIP-09); nothing happens when absent.
    func deleteMessage(mlsGroupID: GroupID, rumorID: EventID) throws

    // MARK: Key packages

    func saveKeyPackage(_ keyPackage: StoredKeyPackage) throws
    func keyPackage(ref: KeyPackageRef) throws -> StoredKeyPackage?
    /// Newest first.
    func keyPackages() throws -> [StoredKeyPackage]
    func deleteKeyPackage(ref: KeyPackageRef) throws

    // MARK: Processed events

    func recordProcessedEvent(_ record: ProcessedEvent) throws
    func processedEvent(id: EventID) throws -> ProcessedEvent?
    /// Forgets records processed before `time`; returns how many.
    @discardableResult func pruneProcessedEvents(processedBefore time: Int64) throws -> Int

    // MARK: Group-event keys

    func saveGroupEventKey(_ key: GroupEventKey, epoch: UInt64, mlsGroupID: GroupID) throws
    /// Newest epoch first.
    func groupEventKeys(mlsGroupID: GroupID) throws -> [StoredGroupEventKey]
    /// Deletes keys of epochs below `epoch`.
    func pruneGroupEventKeys(mlsGroupID: GroupID, keepingFrom epoch: UInt64) throws
    /// The keys of each of `groups` (newest epoch first), read at once: a start-up reads every
    /// group's, and one read per group was a part of a cold start (issue 27). A group without keys
    /// has an empty list.
    func groupEventKeys(of groups: [GroupID]) throws -> [GroupID: [StoredGroupEventKey]]

    // MARK: Settings

    func setting(_ key: String) throws -> Data?
    /// Whether a value is stored under `key`, without opening it (a large sealed value stays closed).
    func hasSetting(_ key: String) throws -> Bool
    /// Which of `keys` have a value stored, without opening any, in one read (see
    /// `groupEventKeys(of:)`).
    func presentSettings(_ keys: [String]) throws -> Set<String>
    /// Stores a value, or removes it when `value` is nil.
    func setSetting(_ key: String, _ value: Data?) throws

    // MARK: Moderation grants

    /// Those of `rumorIDs` whose deletion held the moderation grant in this group (keyed by group
    /// and rumor: security review D3).
    func moderationGrants(mlsGroupID: GroupID, rumorIDs: [EventID]) throws -> Set<EventID>
    /// Records that the deletion `rumorID` held the moderation grant in this group.
    func saveModerationGrant(mlsGroupID: GroupID, rumorID: EventID, at now: Int64) throws

    // MARK: Profiles

    /// The encoded kind-0 profile kept for `person`, if any.
    func profile(of person: PublicKey) throws -> Data?
    /// Keeps `profile` (encoded) for `person`, replacing the one kept before.
    func saveProfile(_ profile: Data, of person: PublicKey) throws

    // MARK: Outbox

    /// The signed event kept for message `rumorID` of ours until a relay accepts it, if any.
    func outboxEvent(mlsGroupID: GroupID, rumorID: EventID) throws -> Event?
    /// Keeps `event` as the unsent event of stored message `rumorID` (gone with the message).
    func saveOutboxEvent(_ event: Event, mlsGroupID: GroupID, rumorID: EventID) throws
    /// Forgets the unsent event of message `rumorID`.
    func deleteOutboxEvent(mlsGroupID: GroupID, rumorID: EventID) throws

    // MARK: Invitations

    /// The encoded pending invitation to group `mlsGroupID`, if one waits.
    func invitation(mlsGroupID: GroupID) throws -> Data?
    /// The MLS state we had left, kept with the invitation back into group `mlsGroupID`.
    func formerState(mlsGroupID: GroupID) throws -> Data?
    /// Keeps the invitation to group `mlsGroupID` and the state we had left there (gone with the group).
    func saveInvitation(_ record: Data, formerState: Data?, mlsGroupID: GroupID) throws
    /// Forgets the invitation to group `mlsGroupID` and its former state.
    func deleteInvitation(mlsGroupID: GroupID) throws

    // MARK: Media (MIP-04)

    /// The media secrets kept for `epoch` (one per state of that epoch), the latest first.
    func mediaSecrets(mlsGroupID: GroupID, epoch: UInt64) throws -> [Data]
    /// Keeps states' media secrets by epoch, in one transaction (one already kept stays).
    func saveMediaSecrets(_ secrets: [(epoch: UInt64, secret: Data)], mlsGroupID: GroupID) throws
    /// Records the epoch a stored message's files were encrypted in and the upload it still owes.
    func saveMessageMedia(mlsGroupID: GroupID, rumorID: EventID, epoch: UInt64, upload: Data?) throws
    /// The epoch message `rumorID`'s files were encrypted in, if recorded.
    func messageMediaEpoch(mlsGroupID: GroupID, rumorID: EventID) throws -> UInt64?
    /// The upload message `rumorID` of ours still owes, if any.
    func pendingUpload(mlsGroupID: GroupID, rumorID: EventID) throws -> Data?
    /// Forgets the upload message `rumorID` owed; its epoch stays.
    func clearPendingUpload(mlsGroupID: GroupID, rumorID: EventID) throws
    /// Forgets what was recorded of message `rumorID`'s media.
    func deleteMessageMedia(mlsGroupID: GroupID, rumorID: EventID) throws
    /// The plaintext kept for a blob (by its SHA-256) of the group, if any.
    func mediaFile(_ purpose: MediaFilePurpose, blob: Data, mlsGroupID: GroupID) throws -> Data?
    /// Whether a plaintext is kept for that blob.
    func hasMediaFile(_ purpose: MediaFilePurpose, blob: Data, mlsGroupID: GroupID) throws -> Bool
    /// Keeps the plaintext of a blob of the group (gone with the group).
    func saveMediaFile(_ content: Data, _ purpose: MediaFilePurpose, blob: Data, mlsGroupID: GroupID) throws
    /// Forgets the plaintext of a blob of the group.
    func deleteMediaFile(_ purpose: MediaFilePurpose, blob: Data, mlsGroupID: GroupID) throws

    /// Runs `body`'s store calls as one transaction: every write is kept, or none.
    func unitOfWork<T>(_ body: () throws -> T) throws -> T
}

extension MarmotStore {
    /// One `groupEventKeys(mlsGroupID:)` per group, for stores without a batch read.
    public func groupEventKeys(of groups: [GroupID]) throws -> [GroupID: [StoredGroupEventKey]] {
        var keys: [GroupID: [StoredGroupEventKey]] = [:]
        for group in groups { keys[group] = try groupEventKeys(mlsGroupID: group) }
        return keys
    }

    /// One `hasSetting` per key, for stores without a batch read.
    public func presentSettings(_ keys: [String]) throws -> Set<String> {
        Set(try keys.filter { try hasSetting($0) })
    }

    /// The newest page (or the one older than `before`), 50 messages.
    public func messages(mlsGroupID: GroupID, before: MessageCursor? = nil) throws -> MessagePage {
        try messages(mlsGroupID: mlsGroupID, before: before, limit: 50)
    }
}
