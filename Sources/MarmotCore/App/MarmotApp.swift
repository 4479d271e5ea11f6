import Foundation

/// The app core's public face: read a snapshot, dispatch actions, listen for updates (MVP spec, FFI
/// Surface). Everything else happens inside the `AppCore` actor.
///
/// Usage: create one per process, call `listenForUpdates(_:)` once (the primary way to observe the
/// core; `updates()` is the same stream for async/await callers), read `state()` for the initial
/// snapshot, then `dispatch(_:)` user intents. Updates are buffered from construction, so nothing
/// committed before the listener attaches is lost: a listener that compares revs with the snapshot it
/// read drops the ones it already has.
public final class MarmotApp: Sendable {
    private let inbox: AsyncStream<CoreMessage>.Continuation
    private let snapshot: LockedValue<AppState>
    private let outlet: LockedValue<AsyncStream<AppUpdate>?>
    private let coreTask: Task<Void, Never>

    /// Starts the core over `dataDirectory`, under which each account gets `<pubkey hex>/`.
    public init(dataDirectory: URL, configuration: AppConfiguration = AppConfiguration()) {
        let (messages, inbox) = AsyncStream<CoreMessage>.makeStream(bufferingPolicy: .unbounded)
        let (updates, updateSink) = AsyncStream<AppUpdate>.makeStream(bufferingPolicy: .unbounded)
        let snapshot = LockedValue(AppState.initial)
        let core = AppCore(
            dataDirectory: dataDirectory, configuration: configuration, inbox: inbox, updateSink: updateSink,
            snapshot: snapshot)
        self.inbox = inbox
        self.snapshot = snapshot
        self.outlet = LockedValue(updates)
        self.coreTask = Task.detached { await core.run(messages) }
    }

    deinit {
        // Ends the actor's loop; it then stops the session's messaging service and finishes updates.
        inbox.finish()
    }

    /// The last committed state. Returns at once from any thread: it reads a copy the actor writes
    /// after each commit and never waits for the actor.
    public func state() -> AppState { snapshot.get() }

    /// Queues an action for the actor and returns at once; it does no I/O and never waits.
    public func dispatch(_ action: AppAction) {
        inbox.yield(.action(action))
    }

    /// The bytes of attachment `index` of a message in `chatID` (MIP-04): at once when they are on
    /// this device, else after the core downloaded and decrypted them (the attachment's state in
    /// `AppState` follows: downloading, then available or failed). For renderers that show or save
    /// a file; the bytes never enter `AppState`.
    public func attachmentData(chatID: ChatID, messageID: MessageID, index: Int) async throws(AttachmentError) -> Data {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Data, AttachmentError>, Never>) in
            inbox.yield(.attachmentRequest(AttachmentRequest(
                chatID: chatID, messageID: messageID, index: index, reply: { continuation.resume(returning: $0) })))
        }
        return try result.get()
    }

    /// The bytes of a chat's group picture (v1 image fields, v2 0x8002): at once when on this
    /// device, else after the core downloaded, checked and decrypted it (`ChatSummary.image`
    /// follows). The bytes never enter `AppState`.
    public func chatImageData(chatID: ChatID) async throws(AttachmentError) -> Data {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Data, AttachmentError>, Never>) in
            inbox.yield(.chatImageRequest(ChatImageRequest(chatID: chatID, reply: { continuation.resume(returning: $0) })))
        }
        return try result.get()
    }

    /// Delivers every update, in rev order, to `reconciler` on a dedicated task, one call at a time.
    /// Only the first call (or `updates()`) gets the stream; later calls do nothing.
    public func listenForUpdates(_ reconciler: any AppReconciler) {
        guard let stream = takeUpdates() else { return }
        Task.detached {
            for await update in stream { reconciler.reconcile(update) }
        }
    }

    /// The update stream for async/await callers, as an alternative to `listenForUpdates(_:)`.
    /// There is one stream: the first caller of either gets it; later calls get a finished stream.
    public func updates() -> AsyncStream<AppUpdate> {
        takeUpdates() ?? AsyncStream { $0.finish() }
    }

    private func takeUpdates() -> AsyncStream<AppUpdate>? {
        outlet.withLock { stream in
            defer { stream = nil }
            return stream
        }
    }
}
