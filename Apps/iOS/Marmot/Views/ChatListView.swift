import MarmotAppKit
import SwiftUI

/// The chats, in the core's order, with its display strings (MVP spec, Screens: Chat List).
struct ChatListView: View {
    let manager: AppManager

    var body: some View {
        List(manager.state.chatList) { chat in
            Button {
                manager.dispatch(.openChat(chatID: chat.chatID))
            } label: {
                ChatRow(chat: chat)
            }
            .badge(Int(chat.unreadCount))
        }
        .overlay {
            if manager.state.chatList.isEmpty {
                ContentUnavailableView(
                    "No chats yet", systemImage: "bubble.left.and.bubble.right",
                    description: Text("Start one with New Chat."))
            }
        }
        .navigationTitle("Chats")
        .toolbar {
            ToolbarItem(placement: .topBarLeading) {
                Button("Log Out", role: .destructive) { manager.logout() }
            }
            ToolbarItem(placement: .topBarTrailing) {
                Button {
                    manager.dispatch(.pushScreen(.newChat))
                } label: {
                    Label("New Chat", systemImage: "square.and.pencil")
                }
            }
        }
    }
}

/// One chat: name, preview and time as the core formatted them.
struct ChatRow: View {
    let chat: ChatSummary

    var body: some View {
        HStack(alignment: .firstTextBaseline) {
            VStack(alignment: .leading, spacing: 4) {
                Text(chat.displayName)
                    .font(.headline)
                    .lineLimit(1)
                Text(chat.lastMessagePreview)
                    .font(.subheadline)
                    .foregroundStyle(.secondary)
                    .lineLimit(1)
            }
            Spacer()
            Text(chat.lastMessageTimeDisplay)
                .font(.caption)
                .foregroundStyle(.secondary)
        }
        .contentShape(Rectangle())
    }
}
