/// A stable, machine-readable reason for how a user operation ended (issue 16: renderers and the CLI
/// decide from codes, never from toast text).
///
/// Open like an error domain: new codes may appear, and the raw strings of existing ones never change,
/// so scripts and exit codes can rely on them.
public struct OutcomeCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// The operation did what was asked.
    public static let ok = OutcomeCode("ok")
    /// An nsec that does not parse.
    public static let invalidNsec = OutcomeCode("invalid_nsec")
    /// An npub that does not parse.
    public static let invalidNpub = OutcomeCode("invalid_npub")
    /// The account's own npub where a peer's is needed.
    public static let ownNpub = OutcomeCode("own_npub")
    /// The account directory or the encrypted store could not be opened.
    public static let storageFailed = OutcomeCode("storage_failed")
    /// No messaging service is configured.
    public static let messagingUnavailable = OutcomeCode("messaging_unavailable")
    /// The peer has no key package on the relays (MIP-00), so no chat can be started with them.
    public static let noKeyPackage = OutcomeCode("no_key_package")
    /// No relay is configured or reachable.
    public static let relayUnreachable = OutcomeCode("relay_unreachable")
    /// No relay accepted the event (message, commit, welcome).
    public static let notSent = OutcomeCode("not_sent")
    /// The invitation is no longer pending.
    public static let unknownInvite = OutcomeCode("unknown_invite")
    /// The chat is not known.
    public static let unknownChat = OutcomeCode("unknown_chat")
    /// The chat is no longer active (we left or were removed).
    public static let chatInactive = OutcomeCode("chat_inactive")
    /// We left or were removed from the chat: it stays readable, nothing can be sent or changed
    /// there until someone adds us again (issue 30).
    public static let notMember = OutcomeCode("not_member")
    /// Only an admin of the chat may do that.
    public static let notAdmin = OutcomeCode("not_admin")
    /// An earlier change to the chat is still being confirmed; try again shortly.
    public static let commitPending = OutcomeCode("commit_pending")
    /// The message acted on is not in the chat as loaded (deleted, or never seen here).
    public static let unknownMessage = OutcomeCode("unknown_message")
    /// Only a message's author may edit or delete it.
    public static let notAuthor = OutcomeCode("not_author")
    /// Reaction text MDK would refuse: empty, surrounded by spaces, with control characters or
    /// longer than 64 characters.
    public static let invalidReaction = OutcomeCode("invalid_reaction")
    /// `unreact` found no reaction of ours to take back.
    public static let notReacted = OutcomeCode("not_reacted")
    /// No device of this account has that id (or it is not waiting to be linked).
    public static let unknownDevice = OutcomeCode("unknown_device")
    /// The person is blocked (issue 48): no chat with them is started and nothing is sent to them.
    public static let blocked = OutcomeCode("blocked")
    /// Anything else; the message says what.
    public static let failed = OutcomeCode("failed")
}

/// The user operations an outcome can be about.
public enum UserOperation: String, Sendable, Equatable, CaseIterable {
    case createAccount = "create_account"
    case login
    case restoreSession = "restore_session"
    case createChat = "create_chat"
    case openChat = "open_chat"
    case sendMessage = "send_message"
    case retryMessage = "retry_message"
    case react
    case unreact
    case reply
    case editMessage = "edit_message"
    case deleteMessage = "delete_message"
    case loadMessages = "load_messages"
    case markChatRead = "mark_chat_read"
    case acceptInvite = "accept_invite"
    case declineInvite = "decline_invite"
    case exportSecret = "export_secret"
    case setProfileName = "set_profile_name"
    case changeRelays = "change_relays"
    case createGroup = "create_group"
    case changeGroup = "change_group"
    case sendAttachment = "send_attachment"
    case downloadAttachment = "download_attachment"
    case changeBlossomServers = "change_blossom_servers"
    case openNotes = "open_notes"
    case listDevices = "list_devices"
    case linkDevice = "link_device"
    case removeDevice = "remove_device"
    case addMyDevices = "add_my_devices"
    case muteChat = "mute_chat"
    case unmuteChat = "unmute_chat"
    case archiveChat = "archive_chat"
    case unarchiveChat = "unarchive_chat"
    case blockPerson = "block_person"
    case unblockPerson = "unblock_person"
    /// Work the messaging layer does on its own (start-up, chat list refresh).
    case messaging
}

/// How the last user operation ended: which operation, a stable code and a human message.
///
/// `sequence` grows with every outcome the core records, so a caller that noted the sequence before
/// dispatching can tell the outcome of its own action from an older one. The toast is derived from
/// the outcome (`toastText`): failures show one, successes do not.
public struct OperationOutcome: Sendable, Equatable {
    public var operation: UserOperation
    public var code: OutcomeCode
    /// Ready to show; never contains a secret or message text.
    public var message: String
    public var sequence: UInt64
    /// For `sendMessage` and `retryMessage`: the message the outcome is about, so a caller waits
    /// for exactly that message whatever delivery state it has reached by the time it looks.
    public var messageID: MessageID?

    public init(operation: UserOperation, code: OutcomeCode, message: String, sequence: UInt64, messageID: MessageID? = nil) {
        self.operation = operation
        self.code = code
        self.message = message
        self.sequence = sequence
        self.messageID = messageID
    }

    public var isSuccess: Bool { code == .ok }

    /// The toast this outcome shows: its message for a failure, none for a success. A message that
    /// failed to send shows on the message itself (delivery mark and retry), not as a toast.
    public var toastText: String? {
        guard !isSuccess else { return nil }
        switch operation {
        case .sendMessage, .retryMessage: return nil
        default: return message
        }
    }
}
