import Crypto
import Foundation
import MLS
import Nostr
import TestSupport
import Testing
@testable import Marmot
@testable import MarmotWire

/// MIP-04 media against the real MDK 0.8.0 peer (mdk-python's `encrypt_media_for_upload`,
/// `create_media_imeta_tag`, `parse_media_imeta_tag`, `decrypt_media_from_download`, through
/// `scripts/interop/mdk_media_peer.py`), both ways, in a group MDK shares with our client: the
/// `imeta` tag travels in a real kind-9 message over a relay; the blob goes through our embedded
/// Blossom server in `mediaGoesBothWaysThroughOurBlossomServer`, and is handed over directly in the
/// others.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: InteropKit.shouldRun, "interop kit (shared/interop + venv) not found"))
struct MDKMediaInteropTests {
    static let script = SharedFixtures.packageRoot.appendingPathComponent("scripts/interop/mdk_media_peer.py").path

    static let picture = TestPictures.realPNG
    /// A 200 KB document.
    static let document = Data((0..<200_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })

    static let files: [(data: Data, type: String, name: String)] = [
        (picture, "image/png", "pixel.png"), (document, "application/pdf", "report.pdf"),
    ]

    static func sha256(_ data: Data) -> String { Hex.encode(SHA256.hash(data: data)) }

    /// MDK encrypts each file and sends its imeta tag in a kind-9 message; we read the tag with
    /// `GroupRules.media` and decrypt the ciphertext with our client's secret of that epoch.
    @Test func mdkSendsMediaWeDecryptIt() async throws {
        try await InteropContext.run(.embedded, peerScript: Self.script) { ctx in
            let (chat, group) = try await ctx.weCreateChat()
            let us = await ctx.us
            for (index, file) in Self.files.enumerated() {
                let encrypted = try await ctx.mdk.call([
                    "cmd": "encrypt_media", "group_id": group, "data_b64": file.data.base64EncodedString(),
                    "mime_type": file.type, "filename": file.name, "url_base": "https://blossom.example/",
                ])
                let imeta = try #require(encrypted["imeta"] as? [String])
                let ciphertext = try #require(Data(base64Encoded: encrypted.string("ciphertext_b64") ?? ""))
                #expect(encrypted.string("original_hash") == Self.sha256(file.data))
                let caption = "file \(index) from mdk"
                _ = try await ctx.mdk.call(["cmd": "send", "group_id": group, "text": caption, "tags": [imeta]])

                let message = try await us.waitForMessage(caption)
                #expect(message.kind == .chatMessage)
                let tag = try #require(message.tags.first { $0.name == "imeta" })
                #expect(tag.fields == imeta)
                let session = try await us.client.session(chat.id)
                let media = session.rules.media
                #expect(media.version == "mip04-v2")
                #expect(media.messageKind == 9)
                let reference = try media.reference(imeta: tag.fields, policy: MediaURLPolicy(ownServers: []))
                #expect(reference.tag == imeta, "our rendering of MDK's tag is MDK's tag")
                #expect(reference.filename == file.name && reference.mimeType == file.type)
                #expect(Hex.encode(reference.blobSHA256) == encrypted.string("encrypted_hash"))
                let plaintext = try media.decrypt(ciphertext, reference: reference, secret: media.secret(of: session.mls))
                #expect(Self.sha256(plaintext) == Self.sha256(file.data))
                #expect(plaintext == file.data)
                if file.type == "image/png" { #expect(reference.dimensions == MediaDimensions(width: 8, height: 6)) }
            }
        }
    }

    /// We encrypt each file with `GroupRules.media` and send its tag in a kind-9 message; MDK
    /// receives it, parses the tag and decrypts the same bytes.
    @Test func weSendMediaMDKDecryptsIt() async throws {
        try await InteropContext.run(.embedded, peerScript: Self.script) { ctx in
            let (chat, group) = try await ctx.weCreateChat()
            let us = await ctx.us
            for (index, file) in Self.files.enumerated() {
                let session = try await us.client.session(chat.id)
                let media = session.rules.media
                let encrypted = try media.encrypt(
                    file.data, mimeType: file.type, filename: file.name,
                    dimensions: file.type == "image/png" ? MediaDimensions(width: 8, height: 6) : nil,
                    secret: media.secret(of: session.mls))
                let reference = encrypted.reference(
                    url: URL(string: "https://blossom.example/\(Hex.encode(encrypted.ciphertextSHA256))")!)
                let caption = "file \(index) from swift"
                _ = try await us.client.send(
                    kind: Kind(rawValue: media.messageKind), content: caption,
                    tags: media.messageTags([reference]).map(Tag.init), to: chat.id)
                let got = try await ctx.mdk.waitForEvent("message") { $0.string("text") == caption }
                let tags = try #require(got["tags"] as? [[String]])
                #expect(tags == [reference.tag])
                let decrypted = try await ctx.mdk.call([
                    "cmd": "decrypt_media", "group_id": group, "ciphertext_b64": encrypted.ciphertext.base64EncodedString(),
                    "imeta": tags[0],
                ])
                #expect(decrypted.string("sha256") == Self.sha256(file.data))
                #expect(Data(base64Encoded: decrypted.string("data_b64") ?? "") == file.data)
            }
        }
    }

    /// Both ways through our embedded Blossom server: MDK encrypts a picture, uploads it with its own
    /// kind-24242 token and sends the `imeta` in a message; our client downloads it, checks the hash
    /// and decrypts the same bytes. We send a document as a user does (`queueMedia`, uploaded by our
    /// client before the message goes); MDK downloads it from our `imeta`'s URL and decrypts the same
    /// bytes.
    @Test func mediaGoesBothWaysThroughOurBlossomServer() async throws {
        try await InteropContext.run(.embedded, peerScript: Self.script) { ctx in
            let (chat, group) = try await ctx.weCreateChat()
            let us = await ctx.us
            let server = try #require(await us.client.blossomServers().first)
            let uploaded = try await ctx.mdk.call([
                "cmd": "upload_media", "group_id": group, "data_b64": Self.picture.base64EncodedString(),
                "mime_type": "image/png", "filename": "pixel.png", "server": server.absoluteString,
            ])
            let imeta = try #require(uploaded["imeta"] as? [String])
            #expect(uploaded.string("url")?.hasPrefix(server.absoluteString) == true)
            _ = try await ctx.mdk.call(["cmd": "send", "group_id": group, "text": "picture from mdk", "tags": [imeta]])
            let message = try await us.waitForMessage("picture from mdk")
            let got = try await us.client.mediaContent(message.rumorID, index: 0, in: chat.id)
            #expect(Self.sha256(got) == Self.sha256(Self.picture))

            let document = OutgoingMedia(data: Self.document, mimeType: "application/pdf", filename: "report.pdf", dimensions: nil)
            let queued = try await us.client.queueMedia(document, caption: "document from swift", to: chat.id)
            _ = try await us.client.deliverQueued(queued.rumorID, in: chat.id)
            let arrived = try await ctx.mdk.waitForEvent("message") { $0.string("text") == "document from swift" }
            let tags = try #require(arrived["tags"] as? [[String]])
            let ours = try #require(tags.first { $0.first == "imeta" })
            let opened = try await ctx.mdk.call(["cmd": "download_media", "group_id": group, "imeta": ours])
            #expect(opened.string("sha256") == Self.sha256(Self.document))
            #expect(Data(base64Encoded: opened.string("data_b64") ?? "") == Self.document)
        }
    }

    /// A blob tampered with on the way, or decrypted with the secret of a later epoch, is refused
    /// by us with a clear error; MDK refuses our tampered blob too.
    @Test func tamperedMediaIsRefusedOnBothSides() async throws {
        try await InteropContext.run(.embedded, peerScript: Self.script) { ctx in
            let (chat, group) = try await ctx.weCreateChat()
            let us = await ctx.us
            let encrypted = try await ctx.mdk.call([
                "cmd": "encrypt_media", "group_id": group, "data_b64": Self.document.base64EncodedString(),
                "mime_type": "application/pdf", "filename": "report.pdf", "url_base": "https://blossom.example/",
            ])
            let imeta = try #require(encrypted["imeta"] as? [String])
            var ciphertext = try #require(Data(base64Encoded: encrypted.string("ciphertext_b64") ?? ""))
            let session = try await us.client.session(chat.id)
            let media = session.rules.media
            let reference = try media.reference(imeta: imeta, policy: MediaURLPolicy(ownServers: []))
            ciphertext[100] ^= 0x80
            #expect(throws: MediaError.blobHashMismatch) {
                try media.decrypt(ciphertext, reference: reference, secret: media.secret(of: session.mls))
            }
            let failure = await #expect(throws: InteropError.self) {
                try await ctx.mdk.call([
                    "cmd": "decrypt_media", "group_id": group, "ciphertext_b64": ciphertext.base64EncodedString(), "imeta": imeta,
                ])
            }
            #expect(failure != nil)
            ciphertext[100] ^= 0x80

            // MDK rotates its leaf: the new epoch's secret does not open the old epoch's file.
            _ = try await ctx.mdk.call(["cmd": "self_update", "group_id": group])
            let epoch = session.mls.epoch + 1
            _ = try await us.waitForCommit(epoch: epoch)
            let later = try await us.client.session(chat.id)
            #expect(later.mls.epoch == epoch)
            #expect(throws: MediaError.decryptionFailed) {
                try media.decrypt(ciphertext, reference: reference, secret: media.secret(of: later.mls))
            }
            #expect(try media.decrypt(ciphertext, reference: reference, secret: media.secret(of: session.mls)) == Self.document)
        }
    }
}
