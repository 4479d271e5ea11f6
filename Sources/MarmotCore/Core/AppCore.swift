import Foundation
import Logging
import Nostr

/// The single owner of all mutable app state (bible §2.2).
///
/// Actions and internal events arrive through one queue and are reduced one at a time by
/// synchronous handlers (split by domain in `Handlers/`); the actor never awaits inside a reduction.
/// Asynchronous work runs in detached tasks whose results come back as `InternalEvent`s through the
/// same queue. After each reduction, derived state is re-established in one place
/// (`reconcileDerivedState`) and the result is committed: one rev, one update (see `AppUpdate`).
actor AppCore {
    let dataDirectory: URL
    let configuration: AppConfiguration
    let formatter: DisplayFormatter
    let logger: Logger
    /// The actor's own queue, for results of spawned work.
    let inbox: AsyncStream<CoreMessage>.Continuation
    private let updateSink: AsyncStream<AppUpdate>.Continuation
    private let snapshot: LockedValue<AppState>

    /// The state as of the reduction in progress; committed at its end.
    var state = AppState.initial
    /// The logged-in session, with everything not visible in `state`.
    var session: Session?
    /// What the projection drew last (see `ProjectionMemo`).
    var projectionMemo = ProjectionMemo()
    /// Numbers login attempts, so a result that arrives after logout or a newer attempt is dropped.
    var authAttempt: UInt64 = 0
    private var lastSessionID: UInt64 = 0
    /// Numbers recorded outcomes (`OperationOutcome.sequence`).
    private var outcomeSequence: UInt64 = 0
    /// Numbers shown toasts, so an expiry for a toast since replaced does nothing.
    private var toastGeneration: UInt64 = 0
    /// The pending expiry of the toast shown.
    private var toastTimer: Task<Void, Never>?

    init(
        dataDirectory: URL, configuration: AppConfiguration, inbox: AsyncStream<CoreMessage>.Continuation,
        updateSink: AsyncStream<AppUpdate>.Continuation, snapshot: LockedValue<AppState>
    ) {
        self.dataDirectory = dataDirectory
        self.configuration = configuration
        self.formatter = DisplayFormatter(clock: configuration.clock, timeZone: configuration.timeZone)
        self.logger = configuration.makeLogger()
        self.inbox = inbox
        self.updateSink = updateSink
        self.snapshot = snapshot
    }

    /// Processes messages until the app is released, then shuts the session down.
    func run(_ messages: AsyncStream<CoreMessage>) async {
        for await message in messages {
            handle(message)
        }
        endSession()
        updateSink.finish()
    }

    /// One reduction: apply, re-derive, commit.
    func handle(_ message: CoreMessage) {
        let before = state
        switch message {
        case .action(let action):
            logger.debug("action", metadata: ["action": "\(action.tag)"])
            reduce(action)
        case .event(let event):
            reduce(event)
        case .attachmentRequest(let request):
            attachmentRequested(request)
        case .chatImageRequest(let request):
            chatImageRequested(request)
        }
        reconcileDerivedState()
        scheduleToastExpiry(since: before)
        scheduleRelayClock()
        scheduleMuteClock()
        commit(since: before)
    }

    private func reduce(_ action: AppAction) {
        switch action {
        case .createAccount: beginSession(.create, nsec: nil)
        case .login(let nsec): beginSession(.login, nsec: nsec)
        case .restoreSession(let nsec): beginSession(.restore, nsec: nsec)
        case .logout: logout()
        case .exportSecret: exportSecret()
        case .pushScreen(let screen): pushScreen(screen)
        case .updateScreenStack(let stack): updateScreenStack(stack)
        case .createChat(let peerNpub): createChat(peerNpub: peerNpub)
        case .sendMessage(let chatID, let content): sendMessage(chatID: chatID, content: content)
        case .sendAttachment(let chatID, let data, let filename, let mimeType, let caption):
            sendAttachment(chatID: chatID, OutgoingAttachment(data: data, filename: filename, mimeType: mimeType), caption: caption)
        case .downloadAttachment(let chatID, let messageID, let index):
            downloadAttachment(chatID: chatID, messageID: messageID, index: index)
        case .addBlossomServer(let url): changeBlossomServers(adding: url)
        case .removeBlossomServer(let url): changeBlossomServers(removing: url)
        case .retryMessage(let chatID, let messageID): retryMessage(chatID: chatID, messageID: messageID)
        case .openChat(let chatID): openChat(chatID)
        case .react(let chatID, let messageID, let emoji): react(chatID: chatID, messageID: messageID, emoji: emoji)
        case .unreact(let chatID, let messageID, let emoji): unreact(chatID: chatID, messageID: messageID, emoji: emoji)
        case .reply(let chatID, let messageID, let content): reply(chatID: chatID, messageID: messageID, content: content)
        case .editMessage(let chatID, let messageID, let content):
            editMessage(chatID: chatID, messageID: messageID, content: content)
        case .deleteMessage(let chatID, let messageID): deleteMessage(chatID: chatID, messageID: messageID)
        case .loadOlder(let chatID): loadOlder(chatID: chatID)
        case .loadOlderMessages(let chatID, let before, let limit):
            loadOlderMessages(chatID: chatID, before: before, limit: limit)
        case .setProfileName(let name): setProfileName(name)
        case .addRelay(let url): changeRelays(adding: url)
        case .removeRelay(let url): changeRelays(removing: url)
        case .createGroup(let name, let npubs): createGroup(name: name, memberNpubs: npubs)
        case .addMembers(let chatID, let npubs): changeGroup(chatID, npubs: npubs) { .add($0) }
        case .removeMember(let chatID, let npub): changeGroup(chatID, npubs: [npub]) { .remove($0[0]) }
        case .renameChat(let chatID, let name): changeGroup(chatID, .rename(name))
        case .setChatImage(let chatID, let data, let mediaType): setChatImage(chatID, data: data, mediaType: mediaType)
        case .clearChatImage(let chatID): changeGroup(chatID, .clearImage)
        case .setRetention(let chatID, let seconds): changeGroup(chatID, .setRetention(seconds))
        case .disbandChat(let chatID): changeGroup(chatID, .disband)
        case .setAdmin(let chatID, let npub, let isAdmin): changeGroup(chatID, npubs: [npub]) { .setAdmin($0[0], isAdmin) }
        case .leaveChat(let chatID): changeGroup(chatID, .leave)
        case .markChatRead(let chatID): markChatRead(chatID)
        case .acceptInvite(let id): answerInvite(id, accept: true)
        case .declineInvite(let id): answerInvite(id, accept: false)
        case .clearToast: state.toast = nil
        case .foregrounded: foregrounded()
        case .openNotes: openNotes()
        case .loadDevices: changeDevices(.listDevices)
        case .linkDevice(let id): changeDevices(.linkDevice, id: id)
        case .removeDevice(let id): changeDevices(.removeDevice, id: id)
        case .addMyDevices(let chatID): addMyDevices(chatID)
        case .muteChat(let chatID, let duration): muteChat(chatID, duration: duration)
        case .unmuteChat(let chatID): unmuteChat(chatID)
        case .archiveChat(let chatID): archiveChat(chatID)
        case .unarchiveChat(let chatID): unarchiveChat(chatID)
        case .blockPerson(let npub): setBlocked(npub, block: true)
        case .unblockPerson(let npub): setBlocked(npub, block: false)
        case .search(let query, let chatID, let limit): search(query, chatID: chatID, limit: limit)
        }
    }

    private func reduce(_ event: InternalEvent) {
        switch event {
        case .sessionPrepared(let attempt, let kind, let result):
            sessionPrepared(attempt: attempt, kind: kind, result: result)
        case .serviceFailed(let id, let operation, let error):
            guard isCurrent(id) else { return }
            serviceFailed(operation: operation, error: error)
        case .chatsLoaded(let id, let chats):
            guard isCurrent(id) else { return }
            chatsLoaded(chats)
        case .chatCreated(let id, let result):
            guard isCurrent(id) else { return }
            chatCreated(result)
        case .messageQueued(let id, let outgoing, let result):
            guard isCurrent(id) else { return }
            messageQueued(outgoing, result: result)
        case .deliveryFinished(let id, let chatID, let messageID, let retry, let code, let outcome):
            guard isCurrent(id) else { return }
            let operation = session?.pendingOperations.removeValue(forKey: messageID) ?? .sendMessage
            applyDelivery(
                chatID: chatID, messageID: messageID, outcome: outcome, operation: retry ? .retryMessage : operation,
                code: code)
        case .pageLoaded(let id, let chatID, let kind, let result):
            guard isCurrent(id) else { return }
            pageLoaded(chatID: chatID, kind: kind, result: result)
        case .unreadLoaded(let id, let messages, let failed):
            guard isCurrent(id) else { return }
            unreadLoaded(messages, failed: failed)
        case .backlogStep(let id):
            guard isCurrent(id) else { return }
            releaseBacklog()
        case .chatMarkedRead(let id, let chatID, let result):
            guard isCurrent(id) else { return }
            chatMarkedRead(chatID, result: result)
        case .messaging(let id, let event):
            guard isCurrent(id) else { return }
            messagingEvent(event)
        case .relaysSet(let id, let result):
            guard isCurrent(id) else { return }
            relaysSet(result)
        case .attachmentLoaded(let id, let chatID, let messageID, let index, let report, let result):
            guard isCurrent(id) else { return }
            attachmentLoaded(chatID: chatID, messageID: messageID, index: index, report: report, result: result)
        case .chatImageLoaded(let id, let chatID, let imageID, let result):
            guard isCurrent(id) else { return }
            chatImageLoaded(chatID: chatID, imageID: imageID, result: result)
        case .blossomServersSet(let id, let change, let result):
            guard isCurrent(id) else { return }
            blossomServersSet(change: change, result)
        case .profileSaved(let id, let result):
            guard isCurrent(id) else { return }
            profileSaved(result)
        case .groupOperationFinished(let id, let operation, let result):
            guard isCurrent(id) else { return }
            groupOperationFinished(operation, result)
        case .inviteAnswered(let id, let invite, let accepted, let result):
            guard isCurrent(id) else { return }
            inviteAnswered(invite, accepted: accepted, result: result)
        case .notesOpened(let id, let result):
            guard isCurrent(id) else { return }
            notesOpened(result)
        case .devicesLoaded(let id, let operation, let result):
            guard isCurrent(id) else { return }
            devicesLoaded(operation, result)
        case .myDevicesAdded(let id, let result):
            guard isCurrent(id) else { return }
            myDevicesAdded(result)
        case .relayClockTick(let id):
            guard isCurrent(id) else { return }
            session?.relayClock = nil  // the texts are re-derived below; the next tick is scheduled
        case .muteClockTick(let id):
            guard isCurrent(id) else { return }
            session?.muteClock = nil  // the chat list is re-derived below; the next end is scheduled
        case .blockedLoaded(let id, let result):
            guard isCurrent(id) else { return }
            blockedLoaded(result)
        case .preferencesSaved(let id, let chatID, let operation, let previous, let result):
            guard isCurrent(id) else { return }
            preferencesSaved(chatID, operation, previous: previous, result)
        case .blockSaved(let id, let person, let blocked, let previousAt, let result):
            guard isCurrent(id) else { return }
            blockSaved(person, blocked: blocked, previousAt: previousAt, result)
        case .searchIndexBuilt(let id, let result):
            guard isCurrent(id) else { return }
            searchIndexBuilt(result)
        case .toastExpired(let generation):
            guard generation == toastGeneration else { return }
            state.toast = nil
        }
    }

    private func isCurrent(_ sessionID: UInt64) -> Bool { session?.id == sessionID }

    // MARK: Sessions

    /// A fresh session number.
    func nextSessionID() -> UInt64 {
        lastSessionID += 1
        return lastSessionID
    }

    // MARK: Async work

    /// Runs `work` off the actor and queues its event, if any, for a later reduction.
    nonisolated func spawn(_ work: @escaping @Sendable () async -> InternalEvent?) {
        let inbox = self.inbox
        Task.detached {
            if let event = await work() { inbox.yield(.event(event)) }
        }
    }

    // MARK: Commit

    /// Bumps the rev, publishes the snapshot, then emits `update`.
    ///
    /// The snapshot is written first, so a listener handed rev N always finds `state().rev >= N`.
    private func publish(_ makeUpdate: (UInt64) -> AppUpdate) {
        state.rev += 1
        let update = makeUpdate(state.rev)
        let committed = state
        snapshot.withLock { $0 = committed }
        logger.trace("commit", metadata: ["update": "\(update.description)"])
        updateSink.yield(update)
    }

    /// Commits the reduction if any visible slice changed: one rev, and the slice's own update when
    /// exactly one changed, else one `fullState`.
    private func commit(since before: AppState) {
        var changed: [(UInt64) -> AppUpdate] = []
        let now = state
        if before.router != now.router { changed.append { .routerChanged(rev: $0, router: now.router) } }
        if before.auth != now.auth { changed.append { .authChanged(rev: $0, auth: now.auth) } }
        if before.busy != now.busy { changed.append { .busyChanged(rev: $0, busy: now.busy) } }
        if before.chatList != now.chatList { changed.append { .chatListChanged(rev: $0, chatList: now.chatList) } }
        if before.currentChat != now.currentChat {
            changed.append { .currentChatChanged(rev: $0, currentChat: now.currentChat) }
        }
        if before.lastOutcome != now.lastOutcome {
            changed.append { .outcomeChanged(rev: $0, outcome: now.lastOutcome, toast: now.toast) }
        } else if before.toast != now.toast {
            changed.append { .toastChanged(rev: $0, toast: now.toast) }
        }
        if before.network != now.network { changed.append { .networkChanged(rev: $0, network: now.network) } }
        if before.invites != now.invites { changed.append { .invitesChanged(rev: $0, invites: now.invites) } }
        if before.profile != now.profile { changed.append { .profileChanged(rev: $0, profile: now.profile) } }
        if before.devices != now.devices { changed.append { .devicesChanged(rev: $0, devices: now.devices) } }
        if before.blocked != now.blocked { changed.append { .blockedChanged(rev: $0, blocked: now.blocked) } }
        if before.search != now.search { changed.append { _ in .fullState(self.state) } }
        guard let only = changed.first else { return }
        if changed.count == 1 {
            publish(only)
        } else {
            publish { _ in .fullState(self.state) }
        }
    }

    /// Emits the `accountCreated` side effect as its own commit, before the login it belongs to.
    func emitAccountCreated(_ keys: Keys) {
        publish { rev in
            .accountCreated(
                rev: rev, nsec: keys.secretKey.nsecEncoded(), pubkey: keys.publicKey.hex, npub: keys.publicKey.npub)
        }
    }

    /// Emits `secretAccepted` as its own commit, before the login it belongs to: the platform keeps
    /// the nsec only once the core has accepted it.
    func emitSecretAccepted(_ keys: Keys) {
        publish { rev in .secretAccepted(rev: rev, nsec: keys.secretKey.nsecEncoded(), npub: keys.publicKey.npub) }
    }

    /// Emits `secretForgotten` as its own commit, before the logout's state change.
    func emitSecretForgotten() {
        publish { rev in .secretForgotten(rev: rev) }
    }

    /// Hands the session's nsec out once, after the user confirmed (`AppAction.exportSecret`).
    func exportSecret() {
        guard let session else {
            finish(.exportSecret, .failed, "No account is logged in")
            return
        }
        let nsec = session.keys.secretKey.nsecEncoded()
        publish { rev in .secretExported(rev: rev, nsec: nsec) }
    }

    // MARK: Outcomes and toasts

    /// Records how `operation` ended (about message `messageID`, for sends); a failure's message
    /// becomes the toast (`toastText`).
    func finish(_ operation: UserOperation, _ code: OutcomeCode, _ message: String = "", messageID: MessageID? = nil) {
        outcomeSequence += 1
        let outcome = OperationOutcome(
            operation: operation, code: code, message: message, sequence: outcomeSequence, messageID: messageID)
        state.lastOutcome = outcome
        if let text = outcome.toastText { state.toast = text }
    }

    /// Records a failed operation from a messaging-layer error: its code, and `prefix` plus its reason.
    func fail(_ operation: UserOperation, _ error: ServiceError, prefix: String) {
        finish(operation, error.code, "\(prefix): \(error.reason)")
    }

    /// Starts the expiry of a toast that appeared (or of a new outcome that re-showed the same text):
    /// after `toastDuration` on the configured timer, the core clears it unless another replaced it.
    private func scheduleToastExpiry(since before: AppState) {
        let shown = state.toast != nil
            && (state.toast != before.toast || state.lastOutcome?.sequence != before.lastOutcome?.sequence)
        if state.toast == nil || shown {
            toastTimer?.cancel()
            toastTimer = nil
        }
        guard shown else { return }
        toastGeneration += 1
        let generation = toastGeneration
        let timer = configuration.timer
        let duration = configuration.toastDuration
        let inbox = self.inbox
        toastTimer = Task.detached {
            await timer.sleep(duration)
            guard !Task.isCancelled else { return }
            inbox.yield(.event(.toastExpired(generation: generation)))
        }
    }

    static let messagingUnavailable = "Messaging unavailable: no messaging service is configured"
    static let notMember = "You are no longer a member of this chat"
}
