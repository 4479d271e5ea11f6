import Foundation
import MarmotCore

/// A core that always shows one state and ignores actions, for SwiftUI previews.
public final class PreviewCore: AppCoreHandle {
    private let fixed: AppState

    public init(state: AppState) { self.fixed = state }

    public func state() -> AppState { fixed }
    public func dispatch(_ action: AppAction) {}
    public func listenForUpdates(_ reconciler: any AppReconciler) {}
    public func attachmentData(chatID: ChatID, messageID: MessageID, index: Int) async throws(AttachmentError) -> Data {
        throw AttachmentError(code: .messagingUnavailable, reason: "previews have no files")
    }
}
