import MarmotAppKit
import SwiftUI

/// The pending invitations, then the chats, in the core's order, with its display strings (MVP spec,
/// Screens: Chat List). Nobody joins a chat without tapping Accept.
struct ChatListView: View {
    let manager: AppManager

    var body: some View {
        List {
            if !manager.state.invites.isEmpty {
                Section("Invitations") {
                    ForEach(manager.state.invites) { invite in
                        InviteRow(
                            invite: invite,
                            answering: manager.state.busy.answeringInvites.contains(invite.inviteID),
                            accept: { manager.dispatch(.acceptInvite(inviteID: invite.inviteID)) },
                            decline: { manager.dispatch(.declineInvite(inviteID: invite.inviteID)) })
                    }
                }
            }
            Section {
                ForEach(manager.state.chatList) { chat in
                    Button {
                        manager.dispatch(.openChat(chatID: chat.chatID))
                    } label: {
                        ChatRow(chat: chat)
                    }
                    .badge(Int(chat.unreadCount))
                }
            }
        }
        .overlay {
            if manager.state.chatList.isEmpty && manager.state.invites.isEmpty {
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

/// One pending invitation: the core's title and time, with Accept and Decline (disabled, with a
/// spinner, while the core answers it).
struct InviteRow: View {
    let invite: InviteSummary
    let answering: Bool
    let accept: () -> Void
    let decline: () -> Void

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            HStack(alignment: .firstTextBaseline) {
                Image(systemName: "envelope.badge")
                    .foregroundStyle(.tint)
                Text(invite.title)
                    .font(.headline)
                    .lineLimit(2)
                Spacer()
                Text(invite.receivedTimeDisplay)
                    .font(.caption)
                    .foregroundStyle(.secondary)
            }
            HStack {
                if answering {
                    ProgressView()
                        .controlSize(.small)
                }
                Spacer()
                Button("Decline", role: .destructive, action: decline)
                    .buttonStyle(.bordered)
                Button("Accept", action: accept)
                    .buttonStyle(.borderedProminent)
            }
            .disabled(answering)
        }
        .padding(.vertical, 4)
    }
}

/// One chat: name (with the member count of a group), preview and time as the core formatted them.
struct ChatRow: View {
    let chat: ChatSummary

    var body: some View {
        HStack(alignment: .firstTextBaseline) {
            VStack(alignment: .leading, spacing: 4) {
                HStack(spacing: 6) {
                    Text(chat.displayName)
                        .font(.headline)
                        .lineLimit(1)
                    if chat.isGroup {
                        Label("\(chat.memberCount)", systemImage: "person.2")
                            .font(.caption)
                            .foregroundStyle(.secondary)
                            .accessibilityLabel("\(chat.memberCount) members")
                    }
                }
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
