import Crypto
import Foundation
import MLS
import Nostr
import NostrClient

/// Group pictures (v1: NostrGroupData image fields as MDK 0.8.0, MIP-01; v2: component 0x8002 as
/// MDK 0.9.14): an admin encrypts the picture with fresh secrets, uploads the ciphertext to a
/// Blossom server (BUD-02, signed with the picture's own upload key) and commits the reference as a
/// group-data change, as a rename is; members download it by its SHA-256 (BUD-01) from their own
/// servers, check the hash and size before decrypting, and keep the plaintext sealed in the store.
extension MarmotClient {
    /// Sets the group's picture: checks it (PNG, JPEG, GIF or WebP; `mediaType` nil takes what the
    /// bytes are), encrypts and uploads it to our first Blossom server, then commits the reference.
    /// Admins only; the upload happens before the commit, so members never see a reference to a
    /// blob that is not there. Its camera metadata is cut first (`ImageMetadata`).
    public func setGroupImage(_ id: GroupID, data original: Data, mediaType: String? = nil) async throws -> CommitOutcome {
        try requireStarted()
        // Camera metadata (EXIF with its GPS position, XMP, IPTC) goes before the picture is sealed.
        let data = stripMetadata(original)
        let sealed: SealedGroupImage
        let uploadKeys: Keys
        do {
            let session = try await checkedAdminSession(id)
            let format = try GroupImageFormat.check(data, declared: mediaType)
            sealed = try session.rules.groupImage.seal(data, format: format)
            uploadKeys = try session.rules.groupImage.uploadKeys(sealed.image)
        } catch let error as GroupImageError {
            throw MarmotClientError.media("\(error)")
        }
        guard let server = blossomServers().first else {
            throw MarmotClientError.media("no Blossom server: add one (`marmot blossom add URL`)")
        }
        do {
            _ = try await BlossomClient().upload(
                sealed.ciphertext, type: "application/octet-stream", to: server, keys: uploadKeys, now: now())
        } catch {
            throw MarmotClientError.media("upload of the group picture to \(server.host ?? server.absoluteString) failed: \(error)")
        }
        try storage { try store.saveMediaFile(data, .groupImage, blob: sealed.image.blobSHA256, mlsGroupID: id) }
        return try await commitGroupImage(id, sealed.image)
    }

    /// Removes the group's picture (admins only): the reference is cleared in one group-data commit.
    public func clearGroupImage(_ id: GroupID) async throws -> CommitOutcome {
        try requireStarted()
        return try await commitGroupImage(id, nil)
    }

    /// Commits `image` as the group's picture without uploading anything (`setGroupImage` uploads
    /// first). `package` so tests can play an admin who names a blob that is not what it claims.
    package func commitGroupImage(_ id: GroupID, _ image: GroupImage?) async throws -> CommitOutcome {
        await acquireSettled(id)
        defer { release() }
        let session = try session(id)
        guard session.mls.isActive, session.stored.status == .active else { throw MarmotClientError.chatInactive(id) }
        return try await updateGroupDataExclusive(id, name: nil, description: nil, admins: nil, image: .some(image))
    }

    /// Commits `bytes` as a v2 group's 0x8007 avatar component, unchecked (we never set one: the
    /// picture goes in 0x8002). `package` so tests can play an admin who names a hostile address.
    package func commitAvatarComponent(_ id: GroupID, bytes: Data) async throws -> CommitOutcome {
        await acquireSettled(id)
        defer { release() }
        let session = try session(id)
        guard isAdmin(session) else { throw MarmotClientError.notAdmin(id) }
        let proposals: [Proposal] = [.appDataUpdate(.update(MarmotComponentID.avatarURL, bytes))]
        return try await commitExclusive(id) { mls, filter throws(GroupError) in
            try mls.commit(proposals: proposals, proposalFilter: filter)
        }
    }

    /// Whether the current picture of the chat is here (set from this device or downloaded).
    public func hasGroupImageContent(_ id: GroupID) -> Bool {
        guard let key = sessions[id]?.metadata.flatMap(Self.groupImageKey) else { return false }
        return (try? store.hasMediaFile(.groupImage, blob: key, mlsGroupID: id)) ?? false
    }

    /// What a group's current picture is kept under: the blob's SHA-256 (0x8002 / v1 fields), else
    /// the SHA-256 of the avatar address (0x8007); nil without a picture.
    static func groupImageKey(_ metadata: GroupMetadata) -> Data? {
        if let image = metadata.image { return image.blobSHA256 }
        return metadata.avatarURL.map { Data(SHA256.hash(data: Data($0.absoluteString.utf8))) }
    }

    /// The plaintext of the chat's picture: from the store when here, else fetched, checked and
    /// kept sealed in the store; nothing is kept when a check fails. An encrypted picture (v1
    /// fields, v2 0x8002) comes from our Blossom servers, each checked by the media URL policy, with
    /// the size bounded and the SHA-256 checked before decryption; a v2 avatar address (0x8007,
    /// https only) is fetched only where the media URL policy allows (no private network unless one
    /// of our own servers), bounded, and must be a PNG, JPEG, GIF or WebP picture.
    public func groupImageContent(_ id: GroupID) async throws -> Data {
        try requireStarted()
        let session = try session(id)
        guard let metadata = session.metadata, let key = Self.groupImageKey(metadata) else {
            throw MarmotClientError.media("the chat has no group picture")
        }
        if let local = try storage({ try store.mediaFile(.groupImage, blob: key, mlsGroupID: id) }) {
            return local
        }
        guard let image = metadata.image else {
            guard let url = metadata.avatarURL else { throw MarmotClientError.media("the chat has no group picture") }
            let data = try await avatarContent(url, maxBytes: session.rules.groupImage.maxImageBytes)
            try storage { try store.saveMediaFile(data, .groupImage, blob: key, mlsGroupID: id) }
            return data
        }
        let scheme = session.rules.groupImage
        let policy = mediaURLPolicy()
        var failures: [String] = []
        for server in groupImageServers() {
            let url = server.appendingPathComponent(image.blobHex)
            do {
                try policy.check(url)
            } catch {
                failures.append("\(server.absoluteString): \(error)")
                continue
            }
            let ciphertext: Data
            do {
                ciphertext = try await BlossomClient().download(
                    url, expectedSHA256: image.blobSHA256, maxBytes: scheme.maxImageBytes + GroupImageCrypto.tagLength)
            } catch {
                failures.append("\(server.host ?? server.absoluteString): \(error)")
                continue
            }
            let plaintext: Data
            do {
                plaintext = try scheme.open(ciphertext, image: image)
            } catch {
                throw MarmotClientError.media("group picture: \(error)")
            }
            try storage { try store.saveMediaFile(plaintext, .groupImage, blob: image.blobSHA256, mlsGroupID: id) }
            return plaintext
        }
        throw MarmotClientError.media("group picture not downloaded: \(failures.joined(separator: "; "))")
    }

    /// A picture named by address: the URL policy first (no request at all to a refused address),
    /// then a bounded GET, then the bytes must be a picture.
    private func avatarContent(_ url: URL, maxBytes: Int) async throws -> Data {
        do {
            try mediaURLPolicy().check(url)
        } catch {
            throw MarmotClientError.media("group picture address refused: \(error)")
        }
        let data: Data
        do {
            data = try await BlossomClient().fetch(url, maxBytes: maxBytes)
        } catch {
            throw MarmotClientError.media("group picture not downloaded from \(url.host ?? "its address"): \(error)")
        }
        guard GroupImageFormat.sniff(data) != nil else {
            throw MarmotClientError.media("group picture at \(url.host ?? "its address") is not a PNG, JPEG, GIF or WebP picture")
        }
        return data
    }

    /// Where a group picture is looked for: the user's Blossom servers, then MDK's default ones
    /// (the component names no server; MDK uploads and fetches at its default, `group_image.rs`).
    func groupImageServers() -> [URL] {
        var servers = blossomServers()
        for text in EncryptedMediaPolicy.defaultBlossomServers {
            if let url = URL(string: text), !servers.contains(url) { servers.append(url) }
        }
        return servers
    }

    /// The session of an active chat we administer.
    private func checkedAdminSession(_ id: GroupID) async throws -> GroupSession {
        await acquire()
        defer { release() }
        let session = try session(id)
        guard session.mls.isActive, session.stored.status == .active else { throw MarmotClientError.chatInactive(id) }
        guard isAdmin(session) else { throw MarmotClientError.notAdmin(id) }
        return session
    }
}
