import Crypto
import Foundation
import MLS
import Nostr
import NostrClient

/// Pictures and files (MIP-04; v2 component 0x800b): encrypted with a key derived from the group's
/// epoch secret, uploaded to a Blossom server (BUD-02), referenced by an `imeta` tag of a kind-9
/// message, and downloaded lazily with the blob's hash checked before decryption (BUD-01).
///
/// A media message goes through the same crash-proof outbox as a text: `queueMedia` encrypts the
/// file, keeps the ciphertext to upload and our own copy of the plaintext (both sealed in the store)
/// and queues the message; `deliverQueued` uploads first (a blob the server already has is not sent
/// again) and only then publishes the message.
extension MarmotClient {
    // MARK: Servers

    /// The Blossom servers media is uploaded to: the ones the user named, else one per relay of
    /// ours (`marmot relay` serves Blossom on its own address, `ws` → `http`).
    public func blossomServers() -> [URL] {
        if let data = (try? store.setting(ClientSettings.blossomServers)).flatMap({ $0 }),
            let list = try? JSONDecoder().decode([URL].self, from: data), !list.isEmpty
        {
            return list
        }
        return relays.compactMap { Self.blossomURL(forRelay: $0) }
    }

    /// Whether the user named servers (false: they are derived from the relays).
    public func hasNamedBlossomServers() -> Bool {
        (try? store.hasSetting(ClientSettings.blossomServers)) ?? false
    }

    /// The HTTP address of the Blossom server a relay of `marmot relay` embeds.
    static func blossomURL(forRelay relay: RelayURL) -> URL? {
        guard var components = URLComponents(string: relay.string) else { return nil }
        switch components.scheme {
        case "ws": components.scheme = "http"
        case "wss": components.scheme = "https"
        default: return nil
        }
        if components.path == "/" { components.path = "" }
        return components.url
    }

    /// Replaces the user's Blossom servers (an empty list goes back to the relay-derived ones) and
    /// publishes the kind-10063 list (BUD-03) on our relays.
    public func setBlossomServers(_ servers: [URL]) async throws {
        for server in servers where !["http", "https"].contains(server.scheme?.lowercased() ?? "") {
            throw MarmotClientError.encoding("\(server.absoluteString) is not an http(s) address")
        }
        var unique: [URL] = []
        for server in servers where !unique.contains(server) { unique.append(server) }
        let value = unique.isEmpty ? nil : try? JSONEncoder().encode(unique)
        try storage { try store.setSetting(ClientSettings.blossomServers, value) }
        let event: Event
        do {
            event = try UnsignedEvent(
                pubkey: publicKey, createdAt: now(), kind: Kind(Self.blossomServerListKind),
                tags: blossomServers().map { Tag(["server", $0.absoluteString]) }, content: ""
            ).signed(with: keys)
        } catch {
            throw MarmotClientError.encoding("server list: \(error)")
        }
        let result = await pool.publish(event, to: ownRoute)
        if !result.isSent { logger.warning("the Blossom server list (kind 10063) reached no relay") }
    }

    /// BUD-03's user server list.
    static let blossomServerListKind: UInt16 = 10063

    /// What media URLs may name: any public http(s) host, and our own servers even on a private
    /// network (a hostile `imeta` cannot make us fetch from the local network otherwise).
    public func mediaURLPolicy() -> MediaURLPolicy {
        MediaURLPolicy(ownServers: blossomServers())
    }

    // MARK: Sending

    /// Encrypts a file for the chat's current epoch and queues a kind-9 message carrying its
    /// `imeta` reference (the caption as content). Durable once this returns: the upload and the
    /// message go out from the outbox (`deliverQueued`), also after a crash.
    public func queueMedia(_ media: OutgoingMedia, caption: String, to chat: GroupID) async throws -> StoredMessage {
        try requireStarted()
        guard let server = blossomServers().first else {
            throw MarmotClientError.media("no Blossom server: add one (`marmot blossom add URL`)")
        }
        let plaintext = stripMetadata(media.data)
        let prepared = try await withExclusive { () throws -> (tags: [Tag], upload: PendingUpload, epoch: UInt64, kind: UInt16, hash: Data) in
                let session = try self.session(chat)
                guard session.mls.isActive, session.stored.status == .active else { throw MarmotClientError.chatInactive(chat) }
                let scheme = session.rules.media
                guard plaintext.count <= scheme.maxPlaintextBytes else {
                    throw MarmotClientError.media("the file is larger than \(scheme.maxPlaintextBytes) bytes")
                }
                let encrypted: EncryptedMedia
                do {
                    let secret = try scheme.secret(of: session.mls)
                    try self.saveMediaSecret(secret, epoch: session.mls.epoch, group: chat)
                    encrypted = try scheme.encrypt(
                        plaintext, mimeType: media.mimeType, filename: media.filename, dimensions: media.dimensions,
                        secret: secret)
                } catch let error as MediaError {
                    throw MarmotClientError.media("\(error)")
                }
                let url = server.appendingPathComponent(Hex.encode(encrypted.ciphertextSHA256))
                let reference = encrypted.reference(url: url)
                let tags = scheme.messageTags([reference]).map(Tag.init)
                let upload = PendingUpload(server: server, type: reference.mimeType, ciphertext: encrypted.ciphertext)
                return (tags, upload, session.mls.epoch, scheme.messageKind, reference.blobSHA256)
        }
        let message = try await queue(kind: Kind(prepared.kind), content: caption, tags: prepared.tags, to: chat)
        try storage {
            try store.unitOfWork {
                try store.saveMessageMedia(mlsGroupID: chat, rumorID: message.rumorID, epoch: prepared.epoch, upload: prepared.upload.encoded())
                // Our own copy: the sender never downloads what it sent.
                try store.saveMediaFile(plaintext, .attachment, blob: prepared.hash, mlsGroupID: chat)
            }
        }
        return message
    }

    /// The bytes of a picture to send without its camera metadata (`ImageMetadata`: EXIF with GPS,
    /// XMP, IPTC, comments); other files, and pictures whose structure does not parse, as given.
    func stripMetadata(_ data: Data) -> Data {
        switch ImageMetadata.strip(data) {
        case .stripped(let data, let removed):
            logger.info("removed picture metadata before sending: \(removed.joined(separator: ", "))")
            return data
        case .clean:
            return data
        case .unreadable(let why):
            logger.notice("picture metadata not removed, the file does not parse as its type: \(why)")
            return data
        }
    }

    /// Runs `body` inside the exclusive section.
    private func withExclusive<T>(_ body: () throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try body()
    }

    /// Uploads the blob a queued media message of ours still owes, if any; on failure the message
    /// is marked failed (Retry uploads again; a server that already holds the blob is not sent it twice).
    func uploadPendingMedia(_ rumorID: EventID, in chat: GroupID) async throws {
        guard let data = try storage({ try store.pendingUpload(mlsGroupID: chat, rumorID: rumorID) }) else { return }
        guard let upload = PendingUpload(encoded: data) else {
            try storage { try store.clearPendingUpload(mlsGroupID: chat, rumorID: rumorID) }
            throw MarmotClientError.media("the stored upload of \(rumorID.hex) is unreadable")
        }
        do {
            let report = UploadProgressReport(sink: eventSink, chat: chat, rumorID: rumorID)
            _ = try await BlossomClient().upload(
                upload.ciphertext, type: upload.type, to: upload.server, keys: keys, now: now(), progress: report.sent)
        } catch {
            logger.warning("upload of the media of \(rumorID.hex) to \(upload.server.absoluteString) failed: \(error)")
            if var stored = try? store.message(mlsGroupID: chat, rumorID: rumorID) {
                try? store.updateDeliveryState(mlsGroupID: chat, rumorID: rumorID, state: .failed, outerEventID: nil)
                stored.deliveryState = .failed
                if let session = sessions[chat] { emit(.deliveryChanged(session.chat, stored)) }
            }
            // Without a named server the relay's own address was tried: most relays serve no Blossom.
            let hint = hasNamedBlossomServers() ? "" : " (no Blossom server is named; your relay's address was tried)"
            throw MarmotClientError.media("upload to \(upload.server.host ?? upload.server.absoluteString) failed: \(error)\(hint)")
        }
        try storage { try store.clearPendingUpload(mlsGroupID: chat, rumorID: rumorID) }
    }

    // MARK: Receiving

    /// The media a message refers to: each `imeta` tag checked (`MediaScheme.reference`), in order.
    /// A tag that does not pass is left out and logged, never shown.
    public func mediaReferences(of message: StoredMessage) -> [MediaReference] {
        mediaReferences(of: message, policy: mediaURLPolicy())
    }

    /// `mediaReferences(of:)` under a policy read once for a whole page.
    private func mediaReferences(of message: StoredMessage, policy: MediaURLPolicy) -> [MediaReference] {
        guard let session = sessions[message.mlsGroupID] else { return [] }
        return message.tags.filter { $0.name == "imeta" }.compactMap { tag in
            do {
                return try session.rules.media.reference(imeta: tag.fields, policy: policy)
            } catch {
                logger.notice("media reference of \(message.rumorID.hex) dropped: \(error)")
                return nil
            }
        }
    }

    /// `messages` with their attachments filled in (checked references, and whether each is here).
    func withAttachments(_ messages: [StoredMessage]) -> [StoredMessage] {
        guard messages.contains(where: { $0.tags.contains { $0.name == "imeta" } }) else { return messages }
        let policy = mediaURLPolicy()
        return messages.map { message in
            guard message.tags.contains(where: { $0.name == "imeta" }) else { return message }
            var decorated = message
            decorated.attachments = mediaReferences(of: message, policy: policy).map {
                MessageAttachment(reference: $0, isHere: hasMediaContent($0, in: message.mlsGroupID))
            }
            return decorated
        }
    }

    /// Whether the plaintext of a message's attachment is here (sent from this device or already
    /// downloaded); asked for every shown message with a file, so the sealed file itself is not opened.
    public func hasMediaContent(_ reference: MediaReference, in chat: GroupID) -> Bool {
        (try? store.hasMediaFile(.attachment, blob: reference.blobSHA256, mlsGroupID: chat)) ?? false
    }

    /// The plaintext of attachment `index` of a message: from the store when here, else downloaded
    /// (the blob's hash checked before anything else), decrypted with the secret of the epoch the
    /// message was sent in, and kept sealed in the store.
    public func mediaContent(_ rumorID: EventID, index: Int, in chat: GroupID) async throws -> Data {
        try requireStarted()
        guard let message = try storage({ try store.message(mlsGroupID: chat, rumorID: rumorID) }) else {
            throw MarmotClientError.unknownMessage(rumorID)
        }
        let policy = mediaURLPolicy()
        let references = mediaReferences(of: message, policy: policy)
        guard references.indices.contains(index) else {
            throw MarmotClientError.media("message \(rumorID.hex) has no attachment \(index + 1)")
        }
        let reference = references[index]
        if let local = try storage({ try store.mediaFile(.attachment, blob: reference.blobSHA256, mlsGroupID: chat) }) {
            return local
        }
        let session = try session(chat)
        let scheme = session.rules.media
        let ciphertext: Data
        do {
            try await policy.checkResolved(reference.url, resolver: options.mediaHostResolver)
        } catch {
            throw MarmotClientError.media("\(reference.filename) is not fetched: \(error)")
        }
        do {
            ciphertext = try await BlossomClient().download(
                reference.url, expectedSHA256: reference.blobSHA256, maxBytes: scheme.maxPlaintextBytes + 1024)
        } catch {
            throw MarmotClientError.media("download from \(reference.url.host ?? "the server") failed: \(error)")
        }
        var lastError: MediaError?
        for secret in try mediaSecrets(for: rumorID, in: chat, session: session) {
            let plaintext: Data
            do {
                plaintext = try scheme.decrypt(ciphertext, reference: reference, secret: secret)
            } catch {
                lastError = error
                continue
            }
            try storage { try store.saveMediaFile(plaintext, .attachment, blob: reference.blobSHA256, mlsGroupID: chat) }
            return plaintext
        }
        throw MarmotClientError.media("cannot decrypt \(reference.filename): \(lastError.map { "\($0)" } ?? "no key of its epoch is kept")")
    }

    /// Secrets to try for a message's media: its epoch's first (recorded when it arrived or was
    /// sent), then the current epoch's, then the other kept epochs, newest first; for each epoch
    /// the current state's and every state's kept for it (branches of a fork share an epoch number,
    /// not a secret: the file's authentication tag tells which one it is).
    private func mediaSecrets(for rumorID: EventID, in chat: GroupID, session: GroupSession) throws -> [MediaSecret] {
        var epochs: [UInt64] = []
        if let epoch = try storage({ try store.messageMediaEpoch(mlsGroupID: chat, rumorID: rumorID) }) { epochs.append(epoch) }
        let current = session.mls.epoch
        if !epochs.contains(current) { epochs.append(current) }
        for epoch in stride(from: Int64(current) - 1, through: max(0, Int64(current) - Self.mediaEpochsTried), by: -1)
        where !epochs.contains(UInt64(epoch)) {
            epochs.append(UInt64(epoch))
        }
        var secrets: [MediaSecret] = []
        for epoch in epochs {
            if epoch == current, let secret = try? session.rules.media.secret(of: session.mls) { secrets.append(secret) }
            for bytes in try storage({ try store.mediaSecrets(mlsGroupID: chat, epoch: epoch) })
            where !secrets.contains(where: { $0.bytes == bytes }) {
                secrets.append(MediaSecret(bytes: bytes))
            }
        }
        return secrets
    }

    /// How many past epochs a download without an epoch record tries.
    static let mediaEpochsTried: Int64 = 16

    /// Keeps a state's media secret, so media sent in it opens after the group moved on (MDK keeps
    /// them per epoch too: `storage-sqlite` encrypted-media epoch secrets; here one per state).
    func saveMediaSecret(_ secret: MediaSecret, epoch: UInt64, group: GroupID) throws {
        try store.saveMediaSecrets([(epoch, secret.bytes)], mlsGroupID: group)
    }

    /// Records the current epoch's media secret; called whenever the group enters an epoch.
    func storeCurrentMediaSecret(_ id: GroupID) {
        guard let session = sessions[id] else { return }
        do {
            try saveMediaSecret(try session.rules.media.secret(of: session.mls), epoch: session.mls.epoch, group: id)
        } catch {
            logger.warning("media secret of \(id) epoch \(session.mls.epoch) not kept: \(error)")
        }
    }

    /// Notes the epoch a received message with media was sent in (its key derives from it).
    func noteMediaEpoch(_ message: StoredMessage, epoch: UInt64) {
        guard message.tags.contains(where: { $0.name == "imeta" }) else { return }
        do {
            try store.saveMessageMedia(mlsGroupID: message.mlsGroupID, rumorID: message.rumorID, epoch: epoch, upload: nil)
        } catch {
            logger.warning("media epoch of \(message.rumorID.hex) not kept: \(error)")
        }
    }

    /// Forgets what is kept of a message's media (it was deleted or expired): the upload it owed,
    /// its epoch record and the plaintext copies of its attachments.
    public func forgetMedia(of message: StoredMessage) {
        guard message.tags.contains(where: { $0.name == "imeta" }) else { return }
        let chat = message.mlsGroupID
        try? store.deleteMessageMedia(mlsGroupID: chat, rumorID: message.rumorID)
        for reference in mediaReferences(of: message) {
            try? store.deleteMediaFile(.attachment, blob: reference.blobSHA256, mlsGroupID: chat)
        }
    }
}

/// One attachment of a stored message: its checked reference and whether its content is here.
public struct MessageAttachment: Sendable, Hashable {
    public let reference: MediaReference
    public let isHere: Bool

    public init(reference: MediaReference, isHere: Bool) {
        self.reference = reference
        self.isHere = isHere
    }
}

/// A file the user sends: its bytes, MIME type, name and, for a picture, its size in pixels.
public struct OutgoingMedia: Sendable {
    public var data: Data
    public var mimeType: String
    public var filename: String
    public var dimensions: MediaDimensions?

    public init(data: Data, mimeType: String, filename: String, dimensions: MediaDimensions? = nil) {
        self.data = data
        self.mimeType = mimeType
        self.filename = filename
        self.dimensions = dimensions
    }
}

/// The encrypted blob a queued media message still has to upload, and where to.
struct PendingUpload: Sendable {
    let server: URL
    let type: String
    let ciphertext: Data

    /// `server` and `type` as two length-prefixed UTF-8 strings, then the ciphertext.
    func encoded() -> Data {
        var out = Data()
        for text in [server.absoluteString, type] {
            let bytes = Data(text.utf8)
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { out.append(contentsOf: $0) }
            out.append(bytes)
        }
        out.append(ciphertext)
        return out
    }

    init(server: URL, type: String, ciphertext: Data) {
        self.server = server
        self.type = type
        self.ciphertext = ciphertext
    }

    init?(encoded: Data) {
        var rest = encoded[...]
        var texts: [String] = []
        for _ in 0..<2 {
            guard rest.count >= 4 else { return nil }
            let count = Int(rest.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            rest = rest.dropFirst(4)
            guard rest.count >= count, let text = String(data: rest.prefix(count), encoding: .utf8) else { return nil }
            texts.append(text)
            rest = rest.dropFirst(count)
        }
        guard let server = URL(string: texts[0]) else { return nil }
        self.init(server: server, type: texts[1], ciphertext: Data(rest))
    }
}

/// Turns an upload's byte counts into `.uploadProgress` events, one per whole percent at most, in
/// the order URLSession reports them (its delegate queue is serial), so a renderer's bar only grows.
final class UploadProgressReport: @unchecked Sendable {
    private let sink: AsyncStream<MarmotClientEvent>.Continuation
    private let chat: GroupID
    private let rumorID: EventID
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var last = -1

    init(sink: AsyncStream<MarmotClientEvent>.Continuation, chat: GroupID, rumorID: EventID) {
        self.sink = sink
        self.chat = chat
        self.rumorID = rumorID
    }

    @Sendable func sent(_ sent: Int64, _ total: Int64) {
        guard total > 0 else { return }
        let percent = Int(min(100, max(0, sent * 100 / total)))
        let changed = lock.withLock { () -> Bool in
            guard percent > last else { return false }
            last = percent
            return true
        }
        if changed { sink.yield(.uploadProgress(chat: chat, rumorID: rumorID, percent: percent)) }
    }
}
