import Foundation
import MarmotAppKit

/// The core as `AppManager` sees it, with a tee on the update stream: every update goes to the
/// manager as usual and, in the same order, to any `subscribe()` stream.
///
/// `listen` needs every update rather than the manager's latest state, because two messages reduced
/// back to back can be applied to the mirror before a renderer looks at it.
final class UpdateTap: AppCoreHandle, @unchecked Sendable {
    let app: MarmotApp
    // Guarded by `lock`: subscribers are added on the main actor and fed on the core's listener task.
    private var subscribers: [UUID: AsyncStream<AppUpdate>.Continuation] = [:]
    private let lock = NSLock()

    init(app: MarmotApp) { self.app = app }

    func state() -> AppState { app.state() }
    func dispatch(_ action: AppAction) { app.dispatch(action) }
    func attachmentData(chatID: ChatID, messageID: MessageID, index: Int) async throws(AttachmentError) -> Data {
        try await app.attachmentData(chatID: chatID, messageID: messageID, index: index)
    }

    func chatImageData(chatID: ChatID) async throws(AttachmentError) -> Data {
        try await app.chatImageData(chatID: chatID)
    }

    func listenForUpdates(_ reconciler: any AppReconciler) {
        app.listenForUpdates(Forwarder(tap: self, next: reconciler))
    }

    /// Updates from now on, in rev order; the stream ends when the subscriber stops iterating.
    func subscribe() -> AsyncStream<AppUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: AppUpdate.self, bufferingPolicy: .unbounded)
        let id = UUID()
        lock.withLock { subscribers[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    fileprivate func broadcast(_ update: AppUpdate) {
        let targets = lock.withLock { Array(subscribers.values) }
        for target in targets { target.yield(update) }
    }

    private struct Forwarder: AppReconciler {
        let tap: UpdateTap
        let next: any AppReconciler

        func reconcile(_ update: AppUpdate) {
            tap.broadcast(update)
            next.reconcile(update)
        }
    }
}
