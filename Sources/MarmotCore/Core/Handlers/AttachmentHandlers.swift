import Foundation
import Nostr

/// Pictures and files (issue 28): sending one through the outbox, downloading one on request, and
/// the Blossom servers they are uploaded to.
extension AppCore {
    /// The most a file may weigh before the messaging layer's own limit is asked (MIP-04 media is
    /// held in memory while it is encrypted).
    static let maxAttachmentBytes = 100 * 1024 * 1024

    func sendAttachment(chatID: ChatID, _ attachment: OutgoingAttachment, caption: String) {
        guard let session else { return }
        guard !attachment.data.isEmpty else {
            finish(.sendAttachment, .failed, "The file is empty")
            return
        }
        guard attachment.data.count <= Self.maxAttachmentBytes else {
            finish(.sendAttachment, .failed, "The file is larger than \(Self.maxAttachmentBytes / 1024 / 1024) MB")
            return
        }
        guard let entry = session.chats[chatID] else {
            finish(.sendAttachment, .unknownChat, "Chat not found")
            return
        }
        guard entry.info.isMember else {
            finish(.sendAttachment, .notMember, Self.notMember)
            return
        }
        if let refusal = blockedRefusal(entry, in: session) {
            finish(.sendAttachment, .blocked, refusal)
            return
        }
        guard let service = session.service else {
            finish(.sendAttachment, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        var outgoing = OutgoingMessage(
            id: .generate(), chatID: chatID, content: caption.trimmingCharacters(in: .whitespacesAndNewlines),
            createdAt: configuration.clock.unixSeconds())
        var clean = attachment
        clean.filename = UntrustedText.line(attachment.filename, limit: 128)
        outgoing.attachment = clean
        enqueue(outgoing, operation: .sendAttachment, session: session, service: service)
    }

    func downloadAttachment(chatID: ChatID, messageID: MessageID, index: Int) {
        fetchAttachment(chatID: chatID, messageID: messageID, index: index, reply: nil)
    }

    /// `MarmotApp.attachmentData`: the same download, answered with the bytes.
    func attachmentRequested(_ request: AttachmentRequest) {
        fetchAttachment(chatID: request.chatID, messageID: request.messageID, index: request.index, reply: request.reply)
    }

    /// Fetches an attachment's bytes through the messaging layer (from the store when here),
    /// tracking its state; `reply` (a renderer's request) gets the bytes or why not.
    private func fetchAttachment(
        chatID: ChatID, messageID: MessageID, index: Int, reply: (@Sendable (Result<Data, AttachmentError>) -> Void)?
    ) {
        func refuse(_ code: OutcomeCode, _ reason: String) {
            if let reply { reply(.failure(AttachmentError(code: code, reason: reason))) } else { finish(.downloadAttachment, code, reason) }
        }
        guard let session, let entry = session.chats[chatID] else { return refuse(.unknownChat, "Chat not found") }
        guard let record = entry.thread.message(messageID), record.attachments.indices.contains(index) else {
            return refuse(.failed, "That message has no such attachment")
        }
        guard let service = session.service else { return refuse(.messagingUnavailable, Self.messagingUnavailable) }
        let current = attachmentState(record, index: index, session: session)
        if reply == nil, current == .downloading || current == .available { return }
        if current != .available { session.attachmentStates[messageID, default: [:]][index] = .downloading }
        let id = session.id
        spawn {
            do {
                let data = try await service.attachmentData(chatID: chatID, messageID: messageID, index: index)
                reply?(.success(data))
                return .attachmentLoaded(
                    session: id, chatID: chatID, messageID: messageID, index: index, report: reply == nil, .success(()))
            } catch {
                let failure = ServiceError(error)
                reply?(.failure(AttachmentError(code: failure.code, reason: failure.reason)))
                return .attachmentLoaded(
                    session: id, chatID: chatID, messageID: messageID, index: index, report: reply == nil, .failure(failure))
            }
        }
    }

    /// A download ended; `report` records the outcome of the user's `downloadAttachment` (a
    /// renderer's `attachmentData` call was answered directly).
    func attachmentLoaded(
        chatID: ChatID, messageID: MessageID, index: Int, report: Bool, result: Result<Void, ServiceError>
    ) {
        guard let session else { return }
        switch result {
        case .success:
            session.attachmentStates[messageID, default: [:]][index] = .available
            if report { finish(.downloadAttachment, .ok, messageID: messageID) }
        case .failure(let error):
            session.attachmentStates[messageID, default: [:]][index] = .failed(reason: error.reason)
            if report { finish(.downloadAttachment, error.code, "Could not open the file: \(error.reason)", messageID: messageID) }
        }
    }

    /// The state of attachment `index` of `record` on this device.
    func attachmentState(_ record: MessageRecord, index: Int, session: Session) -> AttachmentState {
        if let known = session.attachmentStates[record.id]?[index] { return known }
        if record.sender == session.myPublicKey {
            switch record.delivery {
            case .pending: return .uploading
            case .failed(let reason): return .uploadFailed(reason: reason)
            default: break
            }
        }
        return record.attachments[index].isHere ? .available : .remote
    }

    /// The attachments of `record` as the chat shows them.
    func chatAttachments(_ record: MessageRecord, session: Session) -> [ChatAttachment] {
        record.attachments.enumerated().map { index, info in
            let state = attachmentState(record, index: index, session: session)
            var attachment = ChatAttachment(
                index: index, filename: info.filename, mimeType: info.mimeType, size: info.size, width: info.width,
                height: info.height, isImage: info.isImage, state: state, label: formatter.attachmentLabel(info))
            if state == .uploading { attachment.progress = session.uploadProgress[record.id] }
            return attachment
        }
    }

    // MARK: Servers

    func changeBlossomServers(adding text: String) {
        guard let session else { return }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            finish(.changeBlossomServers, .failed, "Not a Blossom server address: use http:// or https://")
            return
        }
        let named = session.blossomServersNamed ? session.blossomServers : []
        guard !named.contains(url) else {
            finish(.changeBlossomServers, .ok)
            return
        }
        setBlossomServers(named + [url], in: session)
    }

    func changeBlossomServers(removing text: String) {
        guard let session else { return }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard session.blossomServersNamed, session.blossomServers.contains(where: { $0.absoluteString == trimmed }) else {
            finish(.changeBlossomServers, .failed, "Not one of your Blossom servers: \(trimmed)")
            return
        }
        setBlossomServers(session.blossomServers.filter { $0.absoluteString != trimmed }, in: session)
    }

    private func setBlossomServers(_ urls: [URL], in session: Session) {
        guard let service = session.service else {
            finish(.changeBlossomServers, .messagingUnavailable, Self.messagingUnavailable)
            return
        }
        let id = session.id
        spawn {
            do {
                try await service.setBlossomServers(urls)
                return .blossomServersSet(session: id, change: true, .success(await service.blossomServers()))
            } catch {
                return .blossomServersSet(session: id, change: true, .failure(ServiceError(error)))
            }
        }
    }

    func blossomServersSet(change: Bool, _ result: Result<(servers: [URL], named: Bool), ServiceError>) {
        guard let session else { return }
        switch result {
        case .success(let list):
            session.blossomServers = list.servers
            session.blossomServersNamed = list.named
            session.blossomServersLoaded = true
            if change { finish(.changeBlossomServers, .ok) }
        case .failure(let error):
            finish(.changeBlossomServers, error.code, "Could not change the Blossom servers: \(error.reason)")
        }
    }
}
