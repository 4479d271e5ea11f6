import Crypto
import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Group pictures between our clients over a real relay and its embedded Blossom server: an admin
/// sets one (uploaded, then committed as group data), members download the same bytes with the
/// hash and size checked before decryption; non-admins cannot set one; clearing removes it; a
/// hostile admin's reference gets a clear error and nothing is stored.
@Suite(.serialized, .timeLimit(.minutes(3))) struct GroupImageTransferTests {
    /// A PNG-headed picture with a recognisable run of bytes (to look for it in the data folders).
    static let marker = Data("MARMOT-GROUP-PICTURE-PLAINTEXT".utf8)
    static let picture = TestPictures.png(30_000) + marker + TestPictures.png(100)

    /// Alice sets the picture of `chat`; `members` see the reference and download the same bytes.
    static func setAndSee(_ alice: TestAccount, _ members: [TestAccount], chat: GroupID) async throws {
        let epoch = try #require(await alice.epochState(chat)).epoch
        _ = try await alice.client.setGroupImage(chat, data: Self.picture, mediaType: "image/png")
        #expect(try await alice.client.chat(chat)?.image != nil)
        #expect(await alice.client.hasGroupImageContent(chat))
        for member in members {
            _ = try await member.waitForCommit(epoch: epoch + 1)
            let image = try #require(try await member.client.chat(chat)?.image)
            #expect(image == (try await alice.client.chat(chat)?.image))
            #expect(!(await member.client.hasGroupImageContent(chat)))
            let bytes = try await member.client.groupImageContent(chat)
            #expect(Data(SHA256.hash(data: bytes)) == Data(SHA256.hash(data: Self.picture)))
            #expect(await member.client.hasGroupImageContent(chat))
        }
    }

    @Test func anAdminSetsTheV1PictureAndTheMemberSeesTheSameBytes() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url)
        #expect(chat.version == .v1)
        try await Self.setAndSee(alice, [bob], chat: chat.id)
        // Neither the set nor the downloaded picture is in the clear in the data folder (database, WAL).
        for account in [alice, bob] {
            let folder = URL(fileURLWithPath: account.databasePath).deletingLastPathComponent()
            let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            #expect(!files.isEmpty)
            for file in files {
                let contents = try Data(contentsOf: file)
                #expect(contents.range(of: Self.marker) == nil, "\(account.name): \(file.lastPathComponent) holds the picture in the clear")
            }
        }
        // Cleared: no picture on either side.
        let epoch = try #require(await alice.epochState(chat.id)).epoch
        _ = try await alice.client.clearGroupImage(chat.id)
        _ = try await bob.waitForCommit(epoch: epoch + 1)
        #expect(try await bob.client.chat(chat.id)?.image == nil)
        #expect(try await alice.client.chat(chat.id)?.image == nil)
        await #expect(throws: MarmotClientError.self) { _ = try await bob.client.groupImageContent(chat.id) }
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    @Test func anAdminSetsTheV2PictureAndNonAdminsCannot() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, chat) = try await V2Fixtures.trio(url)
        try await Self.setAndSee(alice, [bob, carol], chat: chat)
        await GroupChatTests.expectNotAdmin(chat) {
            _ = try await bob.client.setGroupImage(chat, data: Self.picture, mediaType: "image/png")
        }
        await GroupChatTests.expectNotAdmin(chat) { _ = try await carol.client.clearGroupImage(chat) }
        // A picture that is not what it claims is refused before anything is uploaded.
        await #expect(throws: MarmotClientError.self) {
            _ = try await alice.client.setGroupImage(chat, data: Data("<svg onload=x>".utf8), mediaType: "image/svg+xml")
        }
        await #expect(throws: MarmotClientError.self) {
            _ = try await alice.client.setGroupImage(chat, data: Self.picture, mediaType: "image/jpeg")
        }
        await GroupChatTests.shutdown(alice, bob, carol)
        await server.stop()
    }

    /// A hostile admin names a blob that is there but under another key, one that is far too big,
    /// and one that is not there: Bob gets a clear error each time and stores nothing.
    @Test func hostileReferencesAreRefusedAndNothingIsStored() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url)
        let server0 = try #require(await alice.client.blossomServers().first)
        let scheme = V1GroupImageScheme()

        // 1. The right blob, the wrong key.
        let sealed = try scheme.seal(Self.picture, format: .png)
        _ = try await BlossomClient().upload(
            sealed.ciphertext, type: "application/octet-stream", to: server0, keys: alice.keys, now: UnsignedEvent.now())
        var wrongKey = sealed.image
        wrongKey.key = Data(repeating: 9, count: 32)
        // 2. A blob over the size limit (the server holds it; the member must not take it).
        let huge = Data(count: scheme.maxImageBytes + 4_096)
        _ = try? await BlossomClient().upload(huge, type: "application/octet-stream", to: server0, keys: alice.keys, now: UnsignedEvent.now())
        var oversize = sealed.image
        oversize.blobSHA256 = Data(SHA256.hash(data: huge))
        // 3. A blob nobody has.
        var missing = sealed.image
        missing.blobSHA256 = Data(repeating: 0x5A, count: 32)

        for hostile in [wrongKey, oversize, missing] {
            let epoch = try #require(await alice.epochState(chat.id)).epoch
            _ = try await alice.client.commitGroupImage(chat.id, hostile)
            _ = try await bob.waitForCommit(epoch: epoch + 1)
            #expect(try await bob.client.chat(chat.id)?.image == hostile)
            let error = await #expect(throws: MarmotClientError.self) { _ = try await bob.client.groupImageContent(chat.id) }
            #expect("\(String(describing: error))".contains("group picture"))
            #expect(!(await bob.client.hasGroupImageContent(chat.id)))
        }
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// A hostile admin names a v2 avatar address (0x8007) on the local network: Bob refuses to
    /// fetch it and never connects (a real listener counts connections); an address that is not
    /// https makes the component invalid, and such a commit is refused.
    @Test func hostileAvatarAddressesAreNotFetched() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, chat) = try await V2Fixtures.trio(url)
        let listener = try ConnectionRecorder()
        defer { listener.stop() }
        let epoch = try #require(await alice.epochState(chat)).epoch
        let local = try GroupAvatarURL(url: "https://127.0.0.1:\(listener.port)/avatar.png")
        _ = try await alice.client.commitAvatarComponent(chat, bytes: Data(local.bytes))
        _ = try await bob.waitForCommit(epoch: epoch + 1)
        #expect(try await bob.client.chat(chat)?.avatarURL == local.url)
        let error = await #expect(throws: MarmotClientError.self) { _ = try await bob.client.groupImageContent(chat) }
        #expect("\(String(describing: error))".contains("refused"), "\(String(describing: error))")
        #expect(!(await bob.client.hasGroupImageContent(chat)))
        try await Task.sleep(for: .milliseconds(300))
        #expect(listener.connectionCount == 0)

        // Not https: the component is invalid, so the new state is not a valid v2 state; the same
        // check (`V2GroupRules.authorize`) that refuses such a commit from a peer refuses ours.
        var hostile: [UInt8] = []
        QUICVarint.encodeBytes(Array("file:///etc/passwd".utf8), into: &hostile)
        hostile += [0, 0]
        let refused = await #expect(throws: MarmotClientError.self) {
            _ = try await alice.client.commitAvatarComponent(chat, bytes: Data(hostile))
        }
        #expect("\(String(describing: refused))".contains("https"), "\(String(describing: refused))")
        #expect(try await bob.client.chat(chat)?.avatarURL == local.url)
        #expect(try #require(await alice.epochState(chat)).epoch == epoch + 1)
        await GroupChatTests.shutdown(alice, bob, carol)
        await server.stop()
    }
}
