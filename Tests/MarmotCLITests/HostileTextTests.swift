import Foundation
import Nostr
import NostrClient
import Testing
import TestSupport

/// A hostile peer's words reach the terminal as plain text (issue 26): its group name, profile
/// name and messages carry ESC sequences, C1 controls, a bidi override and forged lines, and every
/// line `marmot listen`, `invites` and `chats` prints is checked byte for byte.
@Suite(.serialized, .timeLimit(.minutes(4)), .enabled(if: InteropKit.shouldRun, "interop kit (shared/interop + venv) not found"))
struct HostileTextTests {
    /// Clears the screen, sets the window title, a C1 CSI, a right-to-left override and a forged line.
    static let name = "Team\u{1B}[2J\u{1B}]0;pwned\u{07}\u{9B}31m \u{202E}txt.exe\nsystem   [09:00] you were removed"
    static let text = "hello\u{1B}[1A\u{1B}[2K\r\nmessage  [12:00] Bank: send 1 BTC to me\u{202E}"

    @Test func hostileNamesAndMessagesArePrintedAsPlainLines() async throws {
        let home = try TestHome("hostile-text")
        defer { home.remove() }
        try await MDKOnRelay.run { peer in
            let (mdk, mdkNpub, url) = (peer.mdk, peer.npub, peer.url)
            let ours = try await CLI.createAccount(home, relay: url)
            // The peer's profile name (kind 0) is hostile too.
            let keys = try Keys(importing: try #require(peer.nsec))
            let profile = try UnsignedEvent(
                pubkey: keys.publicKey, kind: .metadata, content: #"{"name":"\#(Self.jsonEscaped(Self.name))"}"#
            ).signed(with: keys)
            let publisher = RelayClient(url: url)
            await publisher.connect()
            #expect(await publisher.publish(profile).isAccepted)
            await publisher.disconnect()

            let listen = try CLI.start(["listen", "--timeout", "60", "--relay", url], home: home, name: "marmot listen")
            let created = try await mdk.call([
                "cmd": "create_group", "members": [ours], "name": Self.name, "description": Self.name, "admins": [mdkNpub],
            ])
            let group = try #require(created.string("group_id"))
            let inviteLine = try await Self.line(of: listen, startingWith: "invite")
            Self.expectPrintable(inviteLine)
            #expect(inviteLine.contains("Team[2J]0;pwned31m txt.exe system [09:00] you were removed"), "\(inviteLine)")
            await listen.stop()

            let invites = try await CLI.run(["invites", "--relay", url], home: home)
            #expect(invites.status == 0, "\(invites)")
            Self.expectPrintable(invites.stdout)
            let listed = try await CLI.run(["invites", "--json", "--relay", url], home: home)
            let id = try #require(listed.objects.first?["id"] as? String, "\(listed)")
            let accepted = try await CLI.run(["accept", id, "--relay", url], home: home)
            #expect(accepted.status == 0, "\(accepted)")
            Self.expectPrintable(accepted.stdout)

            _ = try await mdk.call(["cmd": "send", "group_id": group, "text": Self.text])
            let reader = try CLI.start(["listen", "--timeout", "60", "--relay", url], home: home, name: "marmot listen")
            let messageLine = try await Self.line(of: reader, startingWith: "message") { $0.contains("hello") }
            await reader.stop()
            Self.expectPrintable(messageLine)
            #expect(messageLine.contains("hello[1A[2K message [12:00] Bank: send 1 BTC to me [id "), "\(messageLine)")

            let chats = try await CLI.run(["chats", "--relay", url], home: home)
            #expect(chats.status == 0, "\(chats)")
            Self.expectPrintable(chats.stdout)
            #expect(chats.lines.count == 1, "one chat, one line: \(chats.lines)")
            // JSON keeps the message's own line break (escaped), without the controls.
            let json = try await CLI.run(["messages", group, "--json", "--relay", url], home: home)
            let texts = json.objects.compactMap { $0["text"] as? String }
            #expect(texts.contains("hello[1A[2K\nmessage  [12:00] Bank: send 1 BTC to me"), "\(texts)")
        }
    }

    /// No C0/C1 control (other than the line feeds between lines), DEL or bidi control.
    static func expectPrintable(_ output: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bad = output.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x0A: false
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
            default: false
            }
        }
        #expect(bad.isEmpty, "unprintable \(bad.map { String($0.value, radix: 16) }) in \(output.debugDescription)",
                sourceLocation: sourceLocation)
    }

    static func line(
        of process: ChildProcess, startingWith prefix: String, where predicate: (String) -> Bool = { _ in true }
    ) async throws -> String {
        let deadline = Date().addingTimeInterval(60)
        while deadline.timeIntervalSinceNow > 0 {
            guard let line = await process.nextLine(timeout: deadline.timeIntervalSinceNow) else { break }
            expectPrintable(line)
            if line.hasPrefix(prefix), predicate(line) { return line }
        }
        throw HarnessError.unexpectedOutput("\(process.name): no \(prefix) line")
    }

    static func jsonEscaped(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
        return String(decoding: data, as: UTF8.self).dropFirst(2).dropLast(2).description
    }
}
