import MarmotAppKit
import SwiftUI

/// A chat's group picture as a small circle (chat list row, chat header): the core says whether
/// it is there (`ChatImageState`) and gives its bytes (`AppManager.chatImageData`), downloaded,
/// checked and decrypted; a placeholder stands in while it loads or when it failed.
struct GroupAvatar: View {
    let chatID: ChatID
    let state: ChatImageState
    let manager: AppManager
    var size: CGFloat = 36
    @State private var image: UIImage?

    var body: some View {
        Group {
            if let image, state == .available {
                Image(uiImage: image).resizable().scaledToFill()
            } else {
                Image(systemName: state.reason == nil ? "person.2.circle" : "exclamationmark.circle")
                    .resizable()
                    .foregroundStyle(.secondary)
            }
        }
        .frame(width: size, height: size)
        .clipShape(Circle())
        .accessibilityLabel(state.reason.map { "Group picture failed: \($0)" } ?? "Group picture")
        .task(id: state) {
            guard state == .available else {
                image = nil
                return
            }
            if let data = try? await manager.chatImageData(chatID: chatID) { image = UIImage(data: data) }
        }
    }
}
