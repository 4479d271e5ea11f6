import Foundation
import MLS
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Issue 28: pictures and files between our clients, over a real relay with its embedded Blossom
/// server: encrypted and uploaded before the message goes out, downloaded on request with the blob's
/// hash checked before decryption, kept sealed, and refused with a clear error when a server or a
/// member lies.
@Suite(.serialized, .timeLimit(.minutes(3))) struct MediaTransferTests {
    /// A picture-sized file that starts as a PNG does (MDK 0.8.0 checks an image's type by its first
    /// bytes) and holds a recognisable run of bytes (to look for it in the database files).
    static func file(_ marker: String = "MARMOT-MEDIA-PLAINTEXT") -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        data.append(Data(marker.utf8))
        data.append(Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
        return data
    }

    static func png(_ data: Data, name: String = "view.png") -> OutgoingMedia {
        OutgoingMedia(data: data, mimeType: "image/png", filename: name, dimensions: MediaDimensions(width: 640, height: 480))
    }

    /// Alice sends a picture; Bob sees its reference, downloads, decrypts and gets the same bytes.
    static func roundTrip(_ alice: TestAccount, _ bob: TestAccount, chat: GroupID) async throws {
        let data = Self.file()
        let queued = try await alice.client.queueMedia(Self.png(data), caption: "the view", to: chat)
        _ = try await alice.client.deliverQueued(queued.rumorID, in: chat)
        let received = try await bob.waitForMessage("the view")
        let message = try #require(try await bob.client.message(received.rumorID, in: chat))
        #expect(message.attachments.count == 1)
        let attachment = try #require(message.attachments.first)
        #expect(!attachment.isHere)
        #expect(attachment.reference.filename == "view.png")
        #expect(attachment.reference.mimeType == "image/png")
        #expect(attachment.reference.dimensions == MediaDimensions(width: 640, height: 480))
        #expect(try await bob.client.mediaContent(received.rumorID, index: 0, in: chat) == data)
        #expect(try await bob.client.message(received.rumorID, in: chat)?.attachments.first?.isHere == true)
        // The sender never downloads its own file.
        #expect(try await alice.client.mediaContent(queued.rumorID, index: 0, in: chat) == data)
    }

    @Test func aPictureGoesBothWaysInAV1Chat() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url)
        #expect(chat.version == .v1)
        try await Self.roundTrip(alice, bob, chat: chat.id)
        try await Self.roundTrip(bob, alice, chat: chat.id)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    @Test func aPictureGoesThroughAV2Group() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, carol, chat) = try await V2Fixtures.trio(url)
        try await Self.roundTrip(alice, bob, chat: chat)
        // Carol reads the same message with her own copy of the epoch's secret.
        let received = try await carol.waitForMessage("the view")
        #expect(try await carol.client.mediaContent(received.rumorID, index: 0, in: chat) == Self.file())
        await GroupChatTests.shutdown(alice, bob, carol)
        await server.stop()
    }

    /// The group moves on before Bob downloads: the file still opens with the key of the epoch it
    /// was sent in, which Bob kept.
    @Test func mediaOfAnEarlierEpochStillOpens() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, aliceChat, _) = try await TwoClientTests.establish(relay: url)
        let chat = aliceChat.id
        let data = Self.file("EARLIER-EPOCH")
        let queued = try await alice.client.queueMedia(Self.png(data), caption: "before", to: chat)
        _ = try await alice.client.deliverQueued(queued.rumorID, in: chat)
        let received = try await bob.waitForMessage("before")
        let before = try #require(await bob.epochState(chat)).epoch
        _ = try await alice.client.selfUpdate(chat)
        _ = try await bob.waitForCommit(epoch: before + 1)
        #expect(try await bob.client.mediaContent(received.rumorID, index: 0, in: chat) == data)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// A v2 file sent in an epoch the receiver entered through the engine (Bob's commit after he
    /// joined) still opens after the next commit. Before, only v1's commit paths kept an epoch's
    /// media secret (architecture review §3.3-a), and Alice could not decrypt it any more.
    @Test func v2MediaOfAnEpochEnteredByACommitOpensAfterTheNext() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat) = try await V2Fixtures.oneToOne(url)
        let data = Self.file("V2-EPOCH-ENTERED-BY-A-COMMIT")
        let queued = try await bob.client.queueMedia(Self.png(data), caption: "in epoch two", to: chat)
        _ = try await bob.client.deliverQueued(queued.rumorID, in: chat)
        let received = try await alice.waitForMessage("in epoch two")
        #expect(await alice.epochState(chat)?.epoch == 2)
        _ = try await bob.client.selfUpdate(chat)
        _ = try await alice.waitForCommit(epoch: 3)
        #expect(try await alice.client.mediaContent(received.rumorID, index: 0, in: chat) == data)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// Neither the sent nor the downloaded file is in the clear in the data folder (database and WAL).
    @Test func filesAreSealedAtRest() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url)
        try await Self.roundTrip(alice, bob, chat: chat.id)
        let marker = Data("MARMOT-MEDIA-PLAINTEXT".utf8)
        for account in [alice, bob] {
            let folder = URL(fileURLWithPath: account.databasePath).deletingLastPathComponent()
            let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            #expect(!files.isEmpty)
            for file in files {
                let contents = try Data(contentsOf: file)
                #expect(contents.range(of: marker) == nil, "\(account.name): \(file.lastPathComponent) holds the file in the clear")
            }
        }
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// The Blossom server is down: the message stays failed and nothing is published; once the
    /// server is back, Retry uploads it (once) and sends it, and Bob reads it.
    @Test func aFailedUploadIsRetriedAndNotUploadedTwice() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url)
        var blossomConfiguration = RelayConfiguration()
        blossomConfiguration.port = 0
        let blossom = RelayServer(configuration: blossomConfiguration, logger: ClientHarness.logger("blossom"))
        let port = try await blossom.start()
        let blossomURL = try #require(URL(string: "http://127.0.0.1:\(port)"))
        // Both name it (a server on the local network is only fetched from when it is one's own).
        for account in [alice, bob] { try await account.client.setBlossomServers([blossomURL]) }
        #expect(await alice.client.blossomServers() == [blossomURL])
        await blossom.stop()

        let data = Self.file("RETRIED")
        let queued = try await alice.client.queueMedia(Self.png(data), caption: "retried", to: chat.id)
        await #expect(throws: MarmotClientError.self) { try await alice.client.deliverQueued(queued.rumorID, in: chat.id) }
        #expect(try await alice.client.message(queued.rumorID, in: chat.id)?.deliveryState == .failed)

        blossomConfiguration.port = port
        let back = RelayServer(configuration: blossomConfiguration, logger: ClientHarness.logger("blossom"))
        _ = try await back.start()
        _ = try await alice.client.retry(queued.rumorID, in: chat.id)
        let received = try await bob.waitForMessage("retried")
        #expect(try await bob.client.mediaContent(received.rumorID, index: 0, in: chat.id) == data)
        let listed = try await BlossomClient().list(alice.publicKey, on: blossomURL)
        #expect(listed.count == 1)
        await back.stop()
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// A server that serves other bytes than the blob the message names: the download is refused
    /// before decryption and nothing is kept.
    @Test func aTamperedBlobIsRefusedAndNothingIsKept() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url)
        let queued = try await alice.client.queueMedia(Self.png(Self.file()), caption: "tampered", to: chat.id)
        _ = try await alice.client.deliverQueued(queued.rumorID, in: chat.id)
        let received = try await bob.waitForMessage("tampered")
        let reference = try #require(try await bob.client.message(received.rumorID, in: chat.id)?.attachments.first?.reference)
        let folder = try #require(await server.blobDirectory)
        let blob = folder.appendingPathComponent(Hex.encode(reference.blobSHA256))
        #expect(FileManager.default.fileExists(atPath: blob.path))
        var tampered = try Data(contentsOf: blob)
        tampered[tampered.count / 2] ^= 0xff
        try tampered.write(to: blob)

        await #expect(throws: MarmotClientError.self) { try await bob.client.mediaContent(received.rumorID, index: 0, in: chat.id) }
        #expect(try await bob.client.message(received.rumorID, in: chat.id)?.attachments.first?.isHere == false)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// A photo's EXIF (its GPS position) never leaves the sender: Bob gets the picture without it,
    /// and so does Alice's own copy.
    @Test func aPhotosLocationIsNotSent() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url)
        let photo = Data(TestPictures.jpeg)
        let media = OutgoingMedia(data: photo, mimeType: "image/jpeg", filename: "eiffel.jpg", dimensions: nil)
        let queued = try await alice.client.queueMedia(media, caption: "where?", to: chat.id)
        _ = try await alice.client.deliverQueued(queued.rumorID, in: chat.id)
        let received = try await bob.waitForMessage("where?")
        let got = try await bob.client.mediaContent(received.rumorID, index: 0, in: chat.id)
        #expect(!TestPictures.contains(got, "GPS") && !TestPictures.contains(got, "Exif"))
        #expect(Array(got.suffix(TestPictures.jpegScan.count)) == TestPictures.jpegScan)
        #expect(try await alice.client.mediaContent(queued.rumorID, index: 0, in: chat.id) == got)
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// A 3 MB file's upload is reported as it goes: whole percents, increasing, ending at 100,
    /// before the message is sent.
    @Test func uploadProgressIsReportedAsTheBytesGo() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (alice, bob, chat, _) = try await TwoClientTests.establish(relay: url)
        var data = Self.file()
        data.append(Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        let queued = try await alice.client.queueMedia(Self.png(data), caption: "large", to: chat.id)
        _ = await alice.inbox.drain()
        let delivered = try await alice.client.deliverQueued(queued.rumorID, in: chat.id)
        #expect(delivered.message.deliveryState == .sent)
        var percents: [Int] = []
        while percents.last != 100, let event = await alice.inbox.next(timeout: 30) {
            if case .uploadProgress(let group, let rumor, let percent) = event, group == chat.id, rumor == queued.rumorID {
                percents.append(percent)
            }
        }
        #expect(percents.last == 100, "progress: \(percents)")
        #expect(percents == percents.sorted() && Set(percents).count == percents.count)
        _ = try await bob.waitForMessage("large")
        await alice.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// A member names a public-looking host whose DNS record is a loopback address (here Bob's
    /// resolver says so, as a hostile zone would): the reference is shown, but opening it is refused
    /// before any connection, and the listener at that address sees none.
    @Test func aPublicNameThatResolvesToAPrivateAddressIsNotFetched() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let listener = try ConnectionRecorder()
        defer { listener.stop() }
        var options = ClientHarness.options
        options.mediaHostResolver = MediaHostResolver { host in host == "blobs.mallory.example" ? [[127, 0, 0, 1]] : nil }
        let (mallory, bob, chat, _) = try await TwoClientTests.establish(relay: url, bobOptions: options)
        let queued = try await mallory.client.queueMedia(Self.png(Self.file()), caption: "genuine", to: chat.id)
        var tags = try #require(try await mallory.client.message(queued.rumorID, in: chat.id)?.tags)
        _ = try await mallory.client.deliverQueued(queued.rumorID, in: chat.id)
        for index in tags.indices where tags[index].name == "imeta" {
            tags[index] = Tag(tags[index].fields.map { field in
                guard field.hasPrefix("url ") else { return field }
                return "url http://blobs.mallory.example:\(listener.port)/" + (field.split(separator: "/").last.map(String.init) ?? "")
            })
        }
        _ = try await mallory.client.send(kind: .chatMessage, content: "rebound", tags: tags, to: chat.id)
        let hostile = try await bob.waitForMessage("rebound")
        #expect(try await bob.client.message(hostile.rumorID, in: chat.id)?.attachments.count == 1)
        do {
            _ = try await bob.client.mediaContent(hostile.rumorID, index: 0, in: chat.id)
            Issue.record("a name resolving to 127.0.0.1 was fetched")
        } catch {
            #expect("\(error)".contains("resolves to 127.0.0.1"))
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(listener.connectionCount == 0)
        #expect(try await bob.client.message(hostile.rumorID, in: chat.id)?.attachments.first?.isHere == false)
        await mallory.shutdown()
        await bob.shutdown()
        await server.stop()
    }

    /// A member names a private-network address (a router, a cloud metadata endpoint): the
    /// reference is dropped, so nothing is ever fetched from there; a member's blob whose bytes do
    /// not open with the group's key is refused with a clear error.
    @Test func hostileReferencesFromAMemberAreRefused() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let (mallory, bob, chat, _) = try await TwoClientTests.establish(relay: url)
        // A genuine reference, re-pointed at the metadata service.
        let queued = try await mallory.client.queueMedia(Self.png(Self.file()), caption: "genuine", to: chat.id)
        var tags = try #require(try await mallory.client.message(queued.rumorID, in: chat.id)?.tags)
        _ = try await mallory.client.deliverQueued(queued.rumorID, in: chat.id)
        for index in tags.indices where tags[index].name == "imeta" {
            tags[index] = Tag(tags[index].fields.map { $0.hasPrefix("url ") ? "url http://169.254.169.254/latest/meta-data" : $0 })
        }
        _ = try await mallory.client.send(kind: .chatMessage, content: "metadata", tags: tags, to: chat.id)
        let hostile = try await bob.waitForMessage("metadata")
        #expect(try await bob.client.message(hostile.rumorID, in: chat.id)?.attachments.isEmpty == true)
        await #expect(throws: MarmotClientError.self) { try await bob.client.mediaContent(hostile.rumorID, index: 0, in: chat.id) }

        // Junk uploaded under its own hash, named by an otherwise valid reference: the hash matches,
        // the bytes do not open.
        let junk = Data((0..<4096).map { _ in UInt8.random(in: 0...255) })
        let server0 = try #require(await mallory.client.blossomServers().first)
        let descriptor = try await BlossomClient().upload(junk, type: "image/png", to: server0, keys: mallory.keys, now: UnsignedEvent.now())
        let genuine = try #require(try await bob.allMessages(chat.id).first { $0.content == "genuine" })
        var junkTags = try #require(try await bob.client.message(genuine.rumorID, in: chat.id)?.tags)
        for index in junkTags.indices where junkTags[index].name == "imeta" {
            junkTags[index] = Tag(junkTags[index].fields.map {
                $0.hasPrefix("url ") ? "url \(descriptor.url.absoluteString)" : $0
            })
        }
        _ = try await mallory.client.send(kind: .chatMessage, content: "junk", tags: junkTags, to: chat.id)
        let junkMessage = try await bob.waitForMessage("junk")
        // The reference itself is well formed (on a server Bob uses), so it is shown; opening it fails.
        #expect(try await bob.client.message(junkMessage.rumorID, in: chat.id)?.attachments.count == 1)
        await #expect(throws: MarmotClientError.self) { try await bob.client.mediaContent(junkMessage.rumorID, index: 0, in: chat.id) }
        #expect(try await bob.client.message(junkMessage.rumorID, in: chat.id)?.attachments.first?.isHere == false)
        await mallory.shutdown()
        await bob.shutdown()
        await server.stop()
    }
}
