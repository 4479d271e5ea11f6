import Crypto
import Foundation
import MLS
import Nostr
import NostrClient
import TestSupport
import Testing
@testable import Marmot
@testable import MarmotWire

/// v1 group pictures against the real MDK 0.8.0 (mdk-python's `prepare_group_image_for_upload` and
/// `decrypt_group_image`, through `scripts/interop/mdk_media_peer.py`), both ways: MDK encrypts a
/// picture and we open it with the fields its group data would carry; we encrypt one and MDK opens
/// it. mdk-python 0.8.0 cannot set the group-data image fields (`GroupDataUpdate` has no
/// `image_upload_key`, marmot-wire §3.5), so the pictures travel as the fields and the blob.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: InteropKit.shouldRun, "interop kit (shared/interop + venv) not found"))
struct MDKGroupImageInteropTests {
    static let script = MDKMediaInteropTests.script

    @Test func mdkEncryptsAGroupPictureWeOpenIt() async throws {
        try await InteropContext.run(.embedded, peerScript: Self.script) { ctx in
            let prepared = try await ctx.mdk.call([
                "cmd": "prepare_group_image", "data_b64": MDKMediaInteropTests.picture.base64EncodedString(),
                "mime_type": "image/png",
            ])
            let ciphertext = try #require(Data(base64Encoded: prepared.string("ciphertext_b64") ?? ""))
            let plaintext = try #require(Data(base64Encoded: prepared.string("plaintext_b64") ?? ""))
            let image = try GroupImage(
                blobSHA256: Data(try #require(Hex.decode(prepared.string("image_hash") ?? ""))),
                key: Data(try #require(Hex.decode(prepared.string("image_key") ?? ""))),
                nonce: Data(try #require(Hex.decode(prepared.string("image_nonce") ?? ""))),
                uploadKey: Data(repeating: 1, count: 32))
            #expect(image.blobSHA256 == Data(SHA256.hash(data: ciphertext)))
            let opened = try V1GroupImageScheme().open(ciphertext, image: image)
            #expect(Data(SHA256.hash(data: opened)) == Data(SHA256.hash(data: plaintext)))
            #expect(GroupImageFormat.sniff(opened) == .png)
        }
    }

    @Test func weEncryptAGroupPictureMDKOpensIt() async throws {
        try await InteropContext.run(.embedded, allowMDKErrors: true, peerScript: Self.script) { ctx in
            let picture = MDKMediaInteropTests.picture
            let sealed = try V1GroupImageScheme().seal(picture, format: .png)
            let opened = try await ctx.mdk.call([
                "cmd": "decrypt_group_image", "ciphertext_b64": sealed.ciphertext.base64EncodedString(),
                "image_hash": Hex.encode(sealed.image.blobSHA256), "image_key": Hex.encode(sealed.image.key),
                "image_nonce": Hex.encode(sealed.image.nonce),
            ])
            #expect(opened.string("sha256") == Hex.encode(SHA256.hash(data: picture)))
            // MDK checks the hash too: a tampered blob is refused.
            var tampered = sealed.ciphertext
            tampered[3] ^= 1
            await #expect(throws: (any Error).self) {
                _ = try await ctx.mdk.call([
                    "cmd": "decrypt_group_image", "ciphertext_b64": tampered.base64EncodedString(),
                    "image_hash": Hex.encode(sealed.image.blobSHA256), "image_key": Hex.encode(sealed.image.key),
                    "image_nonce": Hex.encode(sealed.image.nonce),
                ])
            }
        }
    }

    /// MDK, admin of a v1 chat with us, sets its group picture (prepared by MDK, the blob put on our
    /// embedded Blossom server by the test with MDK's own upload key): our client shows the same
    /// picture MDK encrypted, downloaded by hash and decrypted.
    @Test func mdkSetsTheGroupPictureOurClientShowsIt() async throws {
        try await InteropContext.run(.embedded, peerScript: Self.script) { ctx in
            let us = await ctx.us
            _ = try await us.client.publishKeyPackage()
            let created = try await ctx.mdk.call(["cmd": "create_chat", "peer_npub": us.publicKey.npub])
            let group = try #require(created.string("group_id"))
            let (chat, _) = try await us.waitForWelcome()
            _ = try await us.waitForCommit(epoch: 2, by: us.publicKey)
            _ = try await ctx.mdk.waitForEvent("commit") { $0.int("epoch") == 2 }

            let prepared = try await ctx.mdk.call([
                "cmd": "prepare_group_image", "data_b64": MDKMediaInteropTests.picture.base64EncodedString(),
                "mime_type": "image/png",
            ])
            let ciphertext = try #require(Data(base64Encoded: prepared.string("ciphertext_b64") ?? ""))
            let plaintext = try #require(Data(base64Encoded: prepared.string("plaintext_b64") ?? ""))
            let uploadKeys = try Keys(importing: try #require(prepared.string("upload_secret_key")))
            let server = try #require(await us.client.blossomServers().first)
            _ = try await BlossomClient().upload(
                ciphertext, type: "application/octet-stream", to: server, keys: uploadKeys, now: UnsignedEvent.now())
            _ = try await ctx.mdk.call([
                "cmd": "set_group_image", "group_id": group, "image_hash": prepared.string("image_hash") ?? "",
                "image_key": prepared.string("image_key") ?? "", "image_nonce": prepared.string("image_nonce") ?? "",
            ])
            _ = try await us.waitForCommit(epoch: 3)
            let image = try #require(try await us.client.chat(chat.id)?.image)
            #expect(Hex.encode(image.blobSHA256) == prepared.string("image_hash"))
            #expect(image.uploadKey == nil, "mdk-python cannot set image_upload_key")
            let shown = try await us.client.groupImageContent(chat.id)
            #expect(Data(SHA256.hash(data: shown)) == Data(SHA256.hash(data: plaintext)))
        }
    }
}
