import MarmotAppKit
import SwiftUI

/// The pending invitations, then the chats, in the core's order, with its display strings (MVP spec,
/// Screens: Chat List). Nobody joins a chat without tapping Accept. The Notes chat is the core's first
/// row; until it exists a Notes row makes it (issue 29).
struct ChatListView: View {
    let manager: AppManager
    /// Whether the "show my secret key" confirmation is up (UI-only state).
    @State private var confirmingExport = false

    var body: some View {
        List {
            if !manager.state.invites.isEmpty {
                Section("Invitations") {
                    ForEach(manager.state.invites) { invite in
                        InviteRow(
                            invite: invite,
                            answering: !invite.canAnswer,
                            accept: { manager.dispatch(.acceptInvite(inviteID: invite.inviteID)) },
                            decline: { manager.dispatch(.declineInvite(inviteID: invite.inviteID)) })
                    }
                }
            }
            Section {
                if !manager.state.chatList.contains(where: \.isNotes) {
                    Button {
                        manager.dispatch(.openNotes)
                    } label: {
                        NotesEntryRow()
                    }
                }
                ForEach(manager.state.inboxChats) { chat in
                    Button {
                        manager.dispatch(.openChat(chatID: chat.chatID))
                    } label: {
                        ChatRow(chat: chat, manager: manager)
                    }
                    .badge(Int(chat.unreadCount))
                }
            }
        }
        .overlay {
            if manager.state.showsNoChatsPlaceholder {
                ContentUnavailableView(
                    "No chats yet", systemImage: "bubble.left.and.bubble.right",
                    description: Text("Start one with New Chat."))
            }
        }
        .navigationTitle("Chats")
        // The nsec is asked from the core only after an explicit confirmation, and shown from the
        // core's side effect (`AppManager.exportedSecret`); no view reads the Keychain.
        .confirmationDialog(
            "Show your secret key?", isPresented: $confirmingExport, titleVisibility: .visible
        ) {
            Button("Show Secret Key", role: .destructive) { manager.exportSecret() }
            Button("Cancel", role: .cancel) {}
        } message: {
            Text("Anyone who sees it can read and send your messages. Never share it.")
        }
        .sheet(isPresented: exportShown) {
            SecretKeyView(nsec: manager.exportedSecret ?? "") { manager.clearExportedSecret() }
        }
        .toolbar {
            ToolbarItem(placement: .topBarLeading) {
                Menu("Account") {
                    Button("Profile") { manager.dispatch(.pushScreen(.profile)) }
                    Button("Relays") { manager.dispatch(.pushScreen(.relays)) }
                    Button("Devices") {
                        manager.dispatch(.pushScreen(.devices))
                        manager.dispatch(.loadDevices)
                    }
                    Button("Export Secret Key…") { confirmingExport = true }
                    Button("Log Out", role: .destructive) { manager.logout() }
                }
            }
            ToolbarItem(placement: .topBarTrailing) {
                Button {
                    manager.dispatch(.pushScreen(.newChat))
                } label: {
                    Label("New Chat", systemImage: "square.and.pencil")
                }
            }
            ToolbarItem(placement: .topBarTrailing) {
                Button {
                    manager.dispatch(.pushScreen(.newGroup))
                } label: {
                    Label("New Group", systemImage: "person.3")
                }
            }
        }
    }
}

extension ChatListView {
    /// Up while the core's exported nsec is held; dismissing forgets it.
    private var exportShown: Binding<Bool> {
        Binding(
            get: { @MainActor in manager.exportedSecret != nil },
            set: { @MainActor shown in if !shown { manager.clearExportedSecret() } })
    }
}

/// The exported nsec, selectable for copying, with a warning; forgotten when dismissed.
struct SecretKeyView: View {
    let nsec: String
    let done: () -> Void

    var body: some View {
        VStack(spacing: 16) {
            Text("Your secret key")
                .font(.headline)
            Text("Anyone who has it can read and send your messages. Keep it somewhere safe.")
                .font(.callout)
                .foregroundStyle(.secondary)
                .multilineTextAlignment(.center)
            Text(nsec)
                .font(.system(.body, design: .monospaced))
                .textSelection(.enabled)
                .privacySensitive()
            Button("Done", action: done)
                .buttonStyle(.borderedProminent)
        }
        .padding()
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

/// One chat: name (with the member count of a group), preview, time and protocol badge as the core
/// formatted them.
struct ChatRow: View {
    let chat: ChatSummary
    let manager: AppManager

    var body: some View {
        HStack(alignment: .firstTextBaseline) {
            if chat.image.isSet {
                GroupAvatar(chatID: chat.chatID, state: chat.image, manager: manager)
            }
            VStack(alignment: .leading, spacing: 4) {
                HStack(spacing: 6) {
                    if chat.isNotes {
                        Image(systemName: "note.text")
                            .foregroundStyle(.tint)
                    }
                    Text(chat.displayName)
                        .font(.headline)
                        .lineLimit(1)
                    if chat.isGroup && !chat.isNotes {
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
            VStack(alignment: .trailing, spacing: 4) {
                Text(chat.lastMessageTimeDisplay)
                    .font(.caption)
                    .foregroundStyle(.secondary)
                // The core's protocol badge (issue 18): small, below the time.
                Text(chat.protocolLabel)
                    .font(.caption2)
                    .foregroundStyle(.tertiary)
            }
        }
        .contentShape(Rectangle())
    }
}

/// Where the Notes chat will be until the core has made it: tapping it asks the core for Notes.
struct NotesEntryRow: View {
    var body: some View {
        HStack(alignment: .firstTextBaseline) {
            Image(systemName: "note.text")
                .foregroundStyle(.tint)
            VStack(alignment: .leading, spacing: 4) {
                Text("Notes")
                    .font(.headline)
                Text("Notes to self on all your devices")
                    .font(.subheadline)
                    .foregroundStyle(.secondary)
            }
            Spacer()
        }
        .contentShape(Rectangle())
    }
}
