import Foundation
import Nostr

/// Everything the actor processes, in arrival order through one queue (bible §2.5 `CoreMsg`).
enum CoreMessage: Sendable {
    case action(AppAction)
    case event(InternalEvent)
    /// A renderer asks for an attachment's bytes (`MarmotApp.attachmentData`); `reply` gets them.
    case attachmentRequest(AttachmentRequest)
    /// A renderer asks for a chat's group picture (`MarmotApp.chatImageData`); `reply` gets it.
    case chatImageRequest(ChatImageRequest)
}

/// One `MarmotApp.chatImageData` call waiting for its answer.
struct ChatImageRequest: Sendable {
    let chatID: ChatID
    let reply: @Sendable (Result<Data, AttachmentError>) -> Void
}

/// One `MarmotApp.attachmentData` call waiting for its answer.
struct AttachmentRequest: Sendable {
    let chatID: ChatID
    let messageID: MessageID
    let index: Int
    let reply: @Sendable (Result<Data, AttachmentError>) -> Void
}

/// Results of asynchronous work and messaging-layer events, fed back to the actor.
///
/// Events tagged with a session or attempt number that is no longer current are dropped, so work
/// finishing after a logout cannot touch the next session.
enum InternalEvent: Sendable {
    case sessionPrepared(attempt: UInt64, kind: SessionKind, Result<PreparedSession, SessionSetupError>)
    case serviceFailed(session: UInt64, operation: String, ServiceError)
    case chatsLoaded(session: UInt64, [ChatInfo])
    case chatCreated(session: UInt64, Result<ChatInfo, ServiceError>)
    case messageQueued(session: UInt64, OutgoingMessage, Result<Void, ServiceError>)
    case deliveryFinished(
        session: UInt64, chatID: ChatID, messageID: MessageID, retry: Bool, code: OutcomeCode, DeliveryOutcome)
    case pageLoaded(session: UInt64, chatID: ChatID, kind: PageKind, Result<MessagePage, ServiceError>)
    /// The unread messages stored before the session began, oldest first across chats, and the chats
    /// whose unread messages could not be read (issue 51).
    case unreadLoaded(session: UInt64, [MessageRecord], failed: [ChatID: ServiceError])
    /// Time for the next step of the unread backlog (at most `ChatSummary.arrivalsKept` per chat).
    case backlogStep(session: UInt64)
    /// A chat was marked read in storage (`markChatRead`), or why not.
    case chatMarkedRead(session: UInt64, ChatID, Result<Void, ServiceError>)
    case messaging(session: UInt64, MessagingEvent)
    /// An invitation was accepted (the chat) or declined (nil), or answering it failed.
    case inviteAnswered(session: UInt64, InviteID, accepted: Bool, Result<ChatInfo?, ServiceError>)
    /// The session's relays were replaced (the new list) or not.
    case relaysSet(session: UInt64, Result<[URL], ServiceError>)
    /// An attachment's download ended: on this device, or why not.
    case attachmentLoaded(
        session: UInt64, chatID: ChatID, messageID: MessageID, index: Int, report: Bool, Result<Void, ServiceError>)
    /// A group picture's download ended (for the picture `imageID` names): here, or why not.
    case chatImageLoaded(session: UInt64, chatID: ChatID, imageID: String, Result<Void, ServiceError>)
    /// The Blossom servers as now in use (`change`: whether the user asked for a change), or why not.
    case blossomServersSet(session: UInt64, change: Bool, Result<(servers: [URL], named: Bool), ServiceError>)
    /// Our profile name was published (the name as published) or not.
    case profileSaved(session: UInt64, Result<String, ServiceError>)
    /// A group operation ended: the chat to open (creation), nothing (a change), or why not.
    case groupOperationFinished(session: UInt64, UserOperation, Result<ChatInfo?, ServiceError>)
    /// The Notes chat was opened (made if needed), or why not.
    case notesOpened(session: UInt64, Result<ChatInfo, ServiceError>)
    /// A device operation ended with the devices as they are now, or why not.
    /// (`groups`: what each chat made of a removal; empty for a list or a link.)
    case devicesLoaded(session: UInt64, UserOperation, Result<(devices: [DeviceInfo], groups: [DeviceGroupOutcome]), ServiceError>)
    /// Our other devices were added to a chat (their ids), or why not.
    case myDevicesAdded(session: UInt64, Result<[String], ServiceError>)
    /// Time passed for the relays' "last event … ago" texts of session `session`.
    case relayClockTick(session: UInt64)
    /// A timed mute may have ended: the chat list is drawn again (issue 48).
    case muteClockTick(session: UInt64)
    /// The people this account blocked, read at the start of a session (before its chats).
    case blockedLoaded(session: UInt64, Result<[BlockedPerson], ServiceError>)
    /// A chat's preferences were kept, or not (then `previous` is put back).
    case preferencesSaved(
        session: UInt64, chatID: ChatID, UserOperation, previous: ChatPreferences, Result<Void, ServiceError>)
    /// A block or unblock was kept, or not (then it is undone).
    case blockSaved(session: UInt64, PublicKey, blocked: Bool, previousAt: Int64?, Result<Void, ServiceError>)
    /// The search index was built from the stored messages (issue 48), or not.
    case searchIndexBuilt(session: UInt64, Result<MessageSearchIndex, ServiceError>)
    /// The toast shown as number `generation` has been up for `AppConfiguration.toastDuration`.
    case toastExpired(generation: UInt64)
}

/// How a session begins; each has its own busy flag.
enum SessionKind: Sendable {
    case create
    case login
    case restore
}

/// Which page of a chat was requested.
enum PageKind: Sendable {
    /// The newest page, when the chat is first shown.
    case newest
    /// The page before the oldest loaded message.
    case older
    /// The newest page again (foreground resume); merged without changing what is known of history.
    case refresh
}

/// Keys and storage, ready for a session.
struct PreparedSession: Sendable {
    let keys: Keys
    let directory: URL
}

/// Why a session could not start.
enum SessionSetupError: Error, Sendable {
    case invalidKey
    case storage(reason: String)
}

/// A messaging-layer failure, reduced to its user-readable reason and a stable code.
///
/// The reason is one cleaned line (`UntrustedText.line`): errors carry text from the network (a
/// Blossom server's `X-Reason`, a relay's words), and every reason reaches renderers as state
/// (attachment and picture states, outcomes), so it is cleaned here, once, for all of them.
struct ServiceError: Error, Sendable {
    let reason: String
    let code: OutcomeCode

    /// Longest reason kept, in characters.
    static let reasonLimit = 500

    init(_ error: any Error) {
        let raw: String
        if let localized = error as? LocalizedError, let text = localized.errorDescription {
            raw = text
        } else {
            raw = String(describing: error)
        }
        reason = UntrustedText.line(raw, limit: Self.reasonLimit)
        code = (error as? any OutcomeCoded)?.outcomeCode ?? .failed
    }
}

/// An error that knows its stable outcome code (the messaging service's errors do).
protocol OutcomeCoded {
    var outcomeCode: OutcomeCode { get }
}
