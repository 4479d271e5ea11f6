import Foundation
import MarmotCore

/// The three calls a platform makes on the core (MVP spec, FFI Surface), behind a protocol so the
/// manager runs against a scripted core in tests and previews (bible §4.1.2).
public protocol AppCoreHandle: AnyObject, Sendable {
    /// The last committed state; fast, never waits for the core.
    func state() -> AppState
    /// Queues an action; returns at once.
    func dispatch(_ action: AppAction)
    /// Delivers every update, in rev order, to `reconciler`.
    func listenForUpdates(_ reconciler: any AppReconciler)
    /// The bytes of a message's attachment (downloaded and decrypted by the core when not here).
    func attachmentData(chatID: ChatID, messageID: MessageID, index: Int) async throws(AttachmentError) -> Data
    /// The bytes of a chat's group picture (downloaded and decrypted by the core when not here).
    func chatImageData(chatID: ChatID) async throws(AttachmentError) -> Data
}

extension AppCoreHandle {
    /// A core that serves no pictures (previews, scripted tests).
    public func chatImageData(chatID: ChatID) async throws(AttachmentError) -> Data {
        throw AttachmentError(code: .failed, reason: "no group pictures here")
    }
}

extension MarmotApp: AppCoreHandle {}
