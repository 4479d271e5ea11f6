import MarmotAppKit
import PhotosUI
import SwiftUI

/// The open chat: bubbles, delivery state, input bar (MVP spec, Screens: Chat).
struct ChatView: View {
    let manager: AppManager
    @State private var draft = ""
    /// What Send does with the draft besides sending it: answer or replace a message (issue 25).
    @State private var composing: Composing?
    /// A picture chosen to send (issue 28); sent as soon as its bytes are loaded.
    @State private var picked: PhotosPickerItem?

    enum Composing: Equatable {
        case reply(MessageID)
        case edit(MessageID)
    }

    var body: some View {
        if let chat = manager.state.currentChat {
            VStack(spacing: 0) {
                ScrollView {
                    LazyVStack(spacing: 8) {
                        ForEach(chat.messages) { message in
                            Group {
                                if message.kind == .system {
                                    SystemLine(message: message)
                                } else {
                                    MessageBubble(message: message, chatID: chat.chatID, manager: manager) {
                                        manager.dispatch(.retryMessage(chatID: chat.chatID, messageID: message.id))
                                    }
                                    .contextMenu {
                                        Button("React 👍") {
                                            manager.dispatch(.react(chatID: chat.chatID, messageID: message.id, emoji: "👍"))
                                        }
                                        Button("Reply") { composing = .reply(message.id) }
                                        if message.canModify {
                                            Button("Edit") {
                                                composing = .edit(message.id)
                                                draft = message.content
                                            }
                                        }
                                        if message.canDelete {
                                            Button("Delete", role: .destructive) {
                                                manager.dispatch(.deleteMessage(chatID: chat.chatID, messageID: message.id))
                                            }
                                        }
                                    }
                                }
                            }
                            .onAppear { manager.messageAppeared(message.id) }
                        }
                    }
                    .padding()
                }
                .defaultScrollAnchor(.bottom)
                Divider()
                HStack(alignment: .bottom) {
                    PhotosPicker(selection: $picked, matching: .images) {
                        Image(systemName: "paperclip")
                    }
                    .accessibilityLabel("Send a picture")
                    .onChange(of: picked) { _, item in
                        guard let item else { return }
                        picked = nil
                        let caption = draft
                        draft = ""
                        Task {
                            // The picture as the library has it; the core encrypts and uploads it.
                            guard let data = try? await item.loadTransferable(type: Data.self) else { return }
                            let type = item.supportedContentTypes.first
                            let mime = type?.preferredMIMEType ?? "image/jpeg"
                            let name = "photo." + (type?.preferredFilenameExtension ?? "jpg")
                            manager.dispatch(.sendAttachment(
                                chatID: chat.chatID, data: data, filename: name, mimeType: mime, caption: caption))
                        }
                    }
                    TextField("Message", text: $draft, axis: .vertical)
                        .lineLimit(1...5)
                        .textFieldStyle(.roundedBorder)
                    if composing != nil {
                        Button("Cancel") {
                            composing = nil
                            draft = ""
                        }
                    }
                    Button(composing == nil ? "Send" : "Done") {
                        switch composing {
                        case .reply(let target):
                            manager.dispatch(.reply(chatID: chat.chatID, messageID: target, content: draft))
                        case .edit(let target):
                            manager.dispatch(.editMessage(chatID: chat.chatID, messageID: target, content: draft))
                        case nil:
                            manager.dispatch(.sendMessage(chatID: chat.chatID, content: draft))
                        }
                        draft = ""
                        composing = nil
                    }
                    .disabled(!chat.canSend(draft: draft))
                }
                .padding()
            }
            .navigationTitle(chat.displayName)
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                // The title, with the member count of a group and the core's protocol badge (issue 18).
                ToolbarItem(placement: .principal) {
                    VStack(spacing: 0) {
                        HStack(spacing: 6) {
                            if chat.image.isSet {
                                GroupAvatar(chatID: chat.chatID, state: chat.image, manager: manager, size: 24)
                            }
                            Text(chat.displayName)
                                .font(.headline)
                                .lineLimit(1)
                        }
                        HStack(spacing: 6) {
                            if chat.isNotes {
                                Text("\(chat.memberCount) device\(chat.memberCount == 1 ? "" : "s")")
                                    .font(.caption)
                                    .foregroundStyle(.secondary)
                            } else if chat.isGroup {
                                Text("\(chat.memberCount) members")
                                    .font(.caption)
                                    .foregroundStyle(.secondary)
                            }
                            Text(chat.protocolLabel)
                                .font(.caption2)
                                .foregroundStyle(.tertiary)
                            if let retention = chat.retentionLabel {
                                Label(retention, systemImage: "timer")
                                    .font(.caption2)
                                    .foregroundStyle(.secondary)
                            }
                            if let convergence = chat.convergenceLabel {
                                Label(convergence, systemImage: "arrow.triangle.branch")
                                    .font(.caption2)
                                    .foregroundStyle(.orange)
                            }
                        }
                    }
                }
                if chat.isGroup && !chat.isNotes {
                    ToolbarItem(placement: .topBarTrailing) {
                        Button {
                            manager.dispatch(.pushScreen(.groupInfo(chatID: chat.chatID)))
                        } label: {
                            Label("Group Info", systemImage: "person.3")
                        }
                    }
                }
            }
        } else {
            ProgressView()
        }
    }
}

/// A system line (someone added, removed or left): the core's wording, centred and dim, without
/// bubble, sender or delivery mark.
struct SystemLine: View {
    let message: ChatMessage

    var body: some View {
        VStack(spacing: 2) {
            Text(message.content)
                .font(.footnote)
            Text(message.displayTimestamp)
                .font(.caption2)
        }
        .foregroundStyle(.secondary)
        .multilineTextAlignment(.center)
        .frame(maxWidth: .infinity)
        .padding(.vertical, 4)
    }
}

/// One message, on the right when it is the user's own.
struct MessageBubble: View {
    let message: ChatMessage
    let chatID: ChatID
    let manager: AppManager
    let retry: () -> Void

    var body: some View {
        HStack {
            if message.isMine { Spacer(minLength: 48) }
            VStack(alignment: message.isMine ? .trailing : .leading, spacing: 4) {
                // A reply quotes its target, or says it is not available (the core's words).
                if let quote = message.replyTo {
                    Text(quote.senderDisplay.isEmpty ? quote.text : "\(quote.senderDisplay): \(quote.text)")
                        .font(.caption)
                        .foregroundStyle(.secondary)
                        .lineLimit(2)
                }
                ForEach(message.attachments, id: \.index) { file in
                    AttachmentView(file: file, messageID: message.id, chatID: chatID, manager: manager)
                }
                if !message.content.isEmpty || message.attachments.isEmpty {
                Text(message.content)
                    .padding(10)
                    .foregroundStyle(message.isMine ? AnyShapeStyle(.white) : AnyShapeStyle(.primary))
                    .background(
                        message.isMine ? AnyShapeStyle(.tint) : AnyShapeStyle(.quaternary),
                        in: RoundedRectangle(cornerRadius: 16))
                    .overlay {
                        if message.mentionsMe {
                            RoundedRectangle(cornerRadius: 16).stroke(.yellow, lineWidth: 2)
                        }
                    }
                }
                if !message.reactions.isEmpty {
                    HStack(spacing: 6) {
                        ForEach(message.reactions, id: \.emoji) { reaction in
                            Text(reaction.label)
                                .font(.caption)
                                .fontWeight(reaction.includesMe ? .semibold : .regular)
                        }
                    }
                }
                HStack(spacing: 4) {
                    Text(message.displayTimestamp)
                        .font(.caption2)
                        .foregroundStyle(.secondary)
                    if message.isEdited {
                        Text(message.editedMark)
                            .font(.caption2)
                            .foregroundStyle(.secondary)
                    }
                    if !message.deliveryMark.isEmpty {
                        DeliveryIndicator(message: message, retry: retry)
                    }
                    if let invalidated = message.invalidatedLabel {
                        Label(invalidated, systemImage: "arrow.triangle.branch")
                            .font(.caption2)
                            .foregroundStyle(.orange)
                    }
                }
            }
            if !message.isMine { Spacer(minLength: 48) }
        }
    }
}

/// Pending: a spinner; sent: a checkmark; failed: a warning and Retry when the core allows it. The
/// core's delivery mark is the accessibility label.
struct DeliveryIndicator: View {
    let message: ChatMessage
    let retry: () -> Void

    var body: some View {
        Group {
            switch message.delivery {
            case .pending:
                ProgressView()
                    .controlSize(.mini)
            case .sent:
                Image(systemName: "checkmark")
                    .font(.caption2)
                    .foregroundStyle(.secondary)
            case .failed:
                Image(systemName: "exclamationmark.circle.fill")
                    .foregroundStyle(.red)
                    .accessibilityHint(message.failureReason ?? "")
            }
        }
        .accessibilityLabel(message.deliveryMark)
        if message.canRetry {
            Button("Retry", action: retry)
                .font(.caption2)
        }
    }
}

/// A picture (shown once on this device) or a file line, with the core's label and state; the bytes
/// come from the core (`AppManager.attachmentData`), which downloads and decrypts them.
struct AttachmentView: View {
    let file: ChatAttachment
    let messageID: MessageID
    let chatID: ChatID
    let manager: AppManager
    @State private var image: UIImage?

    var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            if let image {
                Image(uiImage: image)
                    .resizable()
                    .scaledToFit()
                    .frame(maxWidth: 260, maxHeight: 320)
                    .clipShape(RoundedRectangle(cornerRadius: 12))
            }
            Label(file.label, systemImage: file.isImage ? "photo" : "doc")
                .font(.caption)
            switch file.state {
            case .uploading where file.progress != nil:
                ProgressView(value: Double(file.progress ?? 0), total: 100) { Text(file.stateText).font(.caption2) }
            case .downloading, .uploading:
                ProgressView().controlSize(.small)
            case .failed(let reason), .uploadFailed(let reason):
                Text(reason).font(.caption2).foregroundStyle(.red)
            default:
                EmptyView()
            }
            if file.canDownload {
                Button(file.isImage ? "Show" : "Download") {
                    manager.dispatch(.downloadAttachment(chatID: chatID, messageID: messageID, index: file.index))
                }
                .font(.caption)
            }
        }
        .task(id: file.state) {
            guard file.isImage, file.state == .available, image == nil else { return }
            if let data = try? await manager.attachmentData(chatID: chatID, messageID: messageID, index: file.index) {
                image = UIImage(data: data)
            }
        }
    }
}
