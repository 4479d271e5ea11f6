import MarmotAppKit
import PhotosUI
import SwiftUI

/// A group's members and admins, with add, remove, rename and admin changes when the core says
/// `canManage`, and leaving for everyone (issue 14: group chats). Pushed on top of its chat;
/// `currentChat` stays that chat.
struct GroupInfoView: View {
    let manager: AppManager
    @State private var newMember = ""
    @State private var newName = ""
    @State private var confirmingLeave = false
    @State private var pickedPicture: PhotosPickerItem?

    var body: some View {
        if let chat = manager.state.currentChat {
            List {
                Section {
                    ForEach(members(of: chat), id: \.self) { npub in
                        MemberRow(npub: npub, isAdmin: chat.adminNpubs.contains(npub), isMe: npub == myNpub)
                            .swipeActions {
                                if chat.canManage {
                                    Button("Remove", role: .destructive) {
                                        manager.dispatch(.removeMember(chatID: chat.chatID, npub: npub))
                                    }
                                    Button(chat.adminNpubs.contains(npub) ? "Remove Admin" : "Make Admin") {
                                        manager.dispatch(
                                            .setAdmin(chatID: chat.chatID, npub: npub, isAdmin: !chat.adminNpubs.contains(npub)))
                                    }
                                    .tint(.blue)
                                }
                            }
                    }
                } header: {
                    Text("\(chat.memberCount) members")
                } footer: {
                    if chat.canManage {
                        Text("Swipe a member to remove them or change their admin role.")
                    }
                }
                if chat.canManage {
                    Section("Add Member") {
                        TextField("npub1…", text: $newMember)
                            .textInputAutocapitalization(.never)
                            .autocorrectionDisabled()
                        Button("Add") {
                            manager.dispatch(.addMembers(chatID: chat.chatID, npubs: [newMember]))
                            newMember = ""
                        }
                    }
                    Section("Group Picture") {
                        PhotosPicker("Choose Picture", selection: $pickedPicture, matching: .images)
                        if chat.image.isSet {
                            Button("Remove Picture", role: .destructive) {
                                manager.dispatch(.clearChatImage(chatID: chat.chatID))
                            }
                        }
                    }
                    .onChange(of: pickedPicture) { _, item in
                        guard let item else { return }
                        pickedPicture = nil
                        Task {
                            guard let data = try? await item.loadTransferable(type: Data.self) else { return }
                            // The core reads the type from the bytes (PNG, JPEG, GIF or WebP).
                            manager.dispatch(.setChatImage(chatID: chat.chatID, data: data, mediaType: nil))
                        }
                    }
                    Section("Rename") {
                        TextField(chat.displayName, text: $newName)
                        Button("Rename") {
                            manager.dispatch(.renameChat(chatID: chat.chatID, name: newName))
                            newName = ""
                        }
                    }
                }
                Section {
                    Button("Leave Group", role: .destructive) { confirmingLeave = true }
                }
            }
            .navigationTitle(chat.displayName)
            .confirmationDialog("Leave this group?", isPresented: $confirmingLeave, titleVisibility: .visible) {
                Button("Leave", role: .destructive) { manager.dispatch(.leaveChat(chatID: chat.chatID)) }
            } message: {
                Text("You stop receiving its messages.")
            }
        } else {
            ProgressView()
        }
    }

    private var myNpub: String? {
        if case .loggedIn(let npub, _) = manager.state.auth { return npub }
        return nil
    }

    /// This account first, then the other members in the core's order.
    private func members(of chat: ChatViewState) -> [String] {
        (myNpub.map { [$0] } ?? []) + chat.memberNpubs
    }
}

/// One member: the npub, with "Admin" and "You" marks.
private struct MemberRow: View {
    let npub: String
    let isAdmin: Bool
    let isMe: Bool

    var body: some View {
        HStack {
            Text(npub)
                .font(.footnote.monospaced())
                .lineLimit(1)
                .truncationMode(.middle)
            Spacer()
            if isAdmin {
                Text("Admin")
                    .font(.caption)
                    .foregroundStyle(.green)
            }
            if isMe {
                Text("You")
                    .font(.caption)
                    .foregroundStyle(.secondary)
            }
        }
    }
}
