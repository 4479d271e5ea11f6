import Foundation
import Nostr
import NostrClient
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `$MARMOT_HOME` is the user's alone: what `marmot` creates there is 0600 (folders 0700), a home
/// open to others is tightened, one owned by another user is refused. Run through the built binary.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct HomePermissionsTests {
    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
    }

    /// Every file and folder below `root` with a mode other than 0600 (files) or 0700 (folders).
    static func wideEntries(below root: URL) throws -> [String] {
        var wide: [String] = []
        let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
        while let relative = enumerator.nextObject() as? String {
            let path = root.appendingPathComponent(relative).path
            let type = try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
            let expected = type == .typeDirectory ? 0o700 : 0o600
            let mode = try mode(path)
            if mode != expected { wide.append("\(relative) \(String(mode, radix: 8))") }
        }
        return wide
    }

    @Test func everyFileMarmotCreatesInTheHomeIsOwnerOnly() async throws {
        let home = try TestHome("perms")
        defer { home.remove() }
        // As a user with umask 022 would have made it.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: home.path)

        // The relay's database in the home, with the -wal and -shm SQLite makes once events come.
        let relay = try CLI.start(["relay", "--port", "0"], home: home, name: "marmot relay")
        let relayURL = try #require(await relay.nextLine(timeout: 20))
        // A generous OK wait: at the busy start of a full run the relay subprocess can answer late.
        var configuration = RelayClientConfiguration()
        configuration.publishTimeout = .seconds(60)
        let client = RelayClient(url: relayURL, configuration: configuration)
        await client.connect()
        let keys = Keys.generate()
        #expect(await client.publish(try UnsignedEvent(pubkey: keys.publicKey, kind: .textNote, content: "x").signed(with: keys)).isAccepted)
        await client.disconnect()
        let database = home.url.appendingPathComponent("relay.sqlite").path
        for file in [database, database + "-wal", database + "-shm"] {
            #expect(FileManager.default.fileExists(atPath: file), "\(file)")
            #expect(try Self.mode(file) == 0o600, "\(file)")
        }

        // The account (nsec, install-secret, data/) and the relays file.
        let other = try await TestRelay.start()
        _ = try await CLI.createAccount(home, relay: relayURL)
        let added = try await CLI.run(["relays", "add", other.url, "--relay", relayURL], home: home)
        #expect(added.status == 0, "\(added)")
        #expect(FileManager.default.fileExists(atPath: home.url.appendingPathComponent("relays").path))
        await other.stop()
        await relay.stop()

        #expect(try Self.mode(home.path) == 0o700)
        let entries = try FileManager.default.contentsOfDirectory(atPath: home.path)
        for name in ["nsec", "install-secret", "data", "relays", "relay.sqlite"] {
            #expect(entries.contains(name), "\(name) in \(entries)")
        }
        #expect(try Self.wideEntries(below: home.url) == [])
    }

    @Test func aHomeOpenToOthersIsTightenedAndOneOwnedByAnotherUserIsRefused() async throws {
        let home = try TestHome("wide")
        defer { home.remove() }
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: home.path)
        let shown = try await CLI.run(["account", "show"], home: home)
        #expect(shown.status == 3, "\(shown)")
        #expect(shown.stderr.contains("was open to other users"), "\(shown)")
        #expect(try Self.mode(home.path) == 0o700)
        // Only once: the next run has nothing to say.
        let again = try await CLI.run(["account", "show"], home: home)
        #expect(!again.stderr.contains("open to other users"), "\(again)")

        // Owned by someone else (a planted or shared folder): refused, not used, not changed.
        let foreign: String
        let before = try FileManager.default.contentsOfDirectory(atPath: home.path).sorted()
        if geteuid() == 0 {
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: home.path)
            guard chown(home.path, 65534, 65534) == 0 else {
                Issue.record("chown failed: \(String(cString: strerror(errno)))")
                return
            }
            foreign = home.path
        } else {
            foreign = "/"  // root's
        }
        for arguments in [["account", "show"], ["chats"], ["relay", "--port", "0"]] {
            let refused = try await CLI.run(arguments, home: nil, environment: ["MARMOT_HOME": foreign], timeout: 30)
            #expect(refused.status == 2, "\(refused)")
            #expect(refused.stderr.contains("belongs to another user"), "\(refused)")
        }
        if geteuid() == 0 {
            #expect(try Self.mode(home.path) == 0o777)
            #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).sorted() == before)
        }
    }
}
