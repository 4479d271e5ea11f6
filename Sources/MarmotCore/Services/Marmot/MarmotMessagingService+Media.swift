import Foundation
import Marmot
import Nostr

/// Pictures and files (issue 28): their bytes on request, and the Blossom servers.
extension MarmotMessagingService {
    func attachmentData(chatID: ChatID, messageID: MessageID, index: Int) async throws -> Data {
        let client = try await connectedClient()
        let group = try Self.groupID(chatID)
        guard let rumor = ids.rumor(for: messageID) else { throw MarmotMessagingError.unknownMessage }
        do {
            return try await client.mediaContent(rumor, index: index, in: group)
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
    }

    func chatImageData(chatID: ChatID) async throws -> Data {
        let client = try await connectedClient()
        let group = try Self.groupID(chatID)
        do {
            return try await client.groupImageContent(group)
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
    }

    func blossomServers() async -> (servers: [URL], named: Bool) {
        guard let client = try? await storedClient() else { return ([], false) }
        return (await client.blossomServers(), await client.hasNamedBlossomServers())
    }

    func setBlossomServers(_ urls: [URL]) async throws {
        let client = try await connectedClient()
        do {
            try await client.setBlossomServers(urls)
        } catch {
            throw MarmotMessagingError.friendly(error)
        }
    }

    /// The core's description of a message's attachments (already checked by the client).
    static func attachments(_ message: StoredMessage) -> [AttachmentInfo] {
        message.attachments.map { attachment in
            let reference = attachment.reference
            return AttachmentInfo(
                filename: UntrustedText.line(reference.safeFilename, limit: 128), mimeType: reference.mimeType,
                size: reference.size, width: reference.dimensions.map { Int($0.width) },
                height: reference.dimensions.map { Int($0.height) }, isHere: attachment.isHere)
        }
    }
}
