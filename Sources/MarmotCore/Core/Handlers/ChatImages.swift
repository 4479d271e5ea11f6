import Foundation

/// Group pictures (v1 image fields, v2 0x8002): setting one, and fetching each chat's current one
/// as soon as the group names it, so every renderer can draw it in the chat list and header.
extension AppCore {
    /// The largest picture the core hands to the messaging layer (MDK 0.9.14's group image bound).
    static let maxChatImageBytes = 10 * 1024 * 1024

    func setChatImage(_ chatID: ChatID, data: Data, mediaType: String?) {
        guard !data.isEmpty else {
            finish(.changeGroup, .failed, "The picture is empty")
            return
        }
        guard data.count <= Self.maxChatImageBytes else {
            finish(.changeGroup, .failed, "The picture is larger than \(Self.maxChatImageBytes / 1024 / 1024) MB")
            return
        }
        changeGroup(chatID, .setImage(data, mediaType: mediaType))
    }

    /// The state of a chat's picture on this device.
    func chatImageState(_ entry: ChatEntry, session: Session) -> ChatImageState {
        guard let imageID = entry.info.imageID else { return .none }
        if let known = session.chatImageStates[entry.id], known.imageID == imageID { return known.state }
        return entry.info.imageIsHere ? .available : .loading
    }

    /// Starts the download of a chat's picture when the group names one that is neither here nor
    /// already being fetched or failed.
    func fetchChatImageIfNew(_ chatID: ChatID) {
        guard let session, let entry = session.chats[chatID], let imageID = entry.info.imageID, !entry.info.imageIsHere else { return }
        if let known = session.chatImageStates[chatID], known.imageID == imageID { return }
        fetchChatImage(chatID, imageID: imageID, reply: nil)
    }

    /// `MarmotApp.chatImageData`: the bytes, fetched through the messaging layer when not here.
    func chatImageRequested(_ request: ChatImageRequest) {
        guard let session, let entry = session.chats[request.chatID] else {
            return request.reply(.failure(AttachmentError(code: .unknownChat, reason: "Chat not found")))
        }
        guard let imageID = entry.info.imageID else {
            return request.reply(.failure(AttachmentError(code: .failed, reason: "The chat has no picture")))
        }
        fetchChatImage(request.chatID, imageID: imageID, reply: request.reply)
    }

    private func fetchChatImage(
        _ chatID: ChatID, imageID: String, reply: (@Sendable (Result<Data, AttachmentError>) -> Void)?
    ) {
        guard let session, let service = session.service else {
            reply?(.failure(AttachmentError(code: .messagingUnavailable, reason: Self.messagingUnavailable)))
            return
        }
        if session.chatImageStates[chatID]?.imageID != imageID || session.chatImageStates[chatID]?.state != .available {
            if session.chats[chatID]?.info.imageIsHere != true { session.chatImageStates[chatID] = (imageID, .loading) }
        }
        let id = session.id
        spawn {
            do {
                let data = try await service.chatImageData(chatID: chatID)
                reply?(.success(data))
                return .chatImageLoaded(session: id, chatID: chatID, imageID: imageID, .success(()))
            } catch {
                let failure = ServiceError(error)
                reply?(.failure(AttachmentError(code: failure.code, reason: failure.reason)))
                return .chatImageLoaded(session: id, chatID: chatID, imageID: imageID, .failure(failure))
            }
        }
    }

    /// A picture's download ended; a result for a picture the group has since replaced is dropped.
    func chatImageLoaded(chatID: ChatID, imageID: String, result: Result<Void, ServiceError>) {
        guard let session, session.chats[chatID]?.info.imageID == imageID else { return }
        switch result {
        case .success: session.chatImageStates[chatID] = (imageID, .available)
        case .failure(let error):
            logger.notice("group picture not loaded", metadata: ["chat": "\(chatID)", "code": "\(error.code)"])
            session.chatImageStates[chatID] = (imageID, .failed(reason: error.reason))
        }
    }
}
