import Foundation
import MarmotCore
import Testing

@testable import MarmotCLI

/// A real core with its messaging layer on in-process relays, driven through the key map and
/// renderer as the terminal driver does: R opens Relays, a adds a second relay that then shows as
/// connected, r removes it (each accepted change saved in `$MARMOT_HOME/relays` for the next start),
/// the core's refusals show on the screen; P opens Profile, where a name is saved and shown.
@MainActor
@Suite(.serialized, .timeLimit(.minutes(4)))
struct TUISettingsDrivenTests {
    /// Waits (bounded) until `$MARMOT_HOME/relays` lists `urls`, as the interactive UI saves them.
    private static func saved(_ urls: [String], in home: URL) async throws {
        let file = home.appendingPathComponent("relays")
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let lines = (try? String(contentsOf: file, encoding: .utf8))?.split(separator: "\n").map(String.init)
            if lines == urls { return }
            guard ContinuousClock.now < deadline else {
                Issue.record("\(file.path) holds \(lines ?? []), expected \(urls)")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits for the outcome of the relay change dispatched after `mark`.
    private static func relayChange(_ session: CLISession, after mark: UInt64) async throws -> OperationOutcome {
        try await outcome(of: .changeRelays, "the relay change", in: session, after: mark, timeout: .seconds(60))
    }

    /// Waits (for `what`) for the outcome of the `operation` dispatched after `mark`.
    private static func outcome(
        of operation: UserOperation, _ what: String, in session: CLISession, after mark: UInt64, timeout: Duration = .seconds(30)
    ) async throws -> OperationOutcome {
        try await session.until(what, timeout: timeout) { (state: AppState) -> OperationOutcome? in
            guard let outcome = state.lastOutcome, outcome.sequence > mark, outcome.operation == operation else { return nil }
            return outcome
        }
    }

    /// Opens Alice's session on `relay` (relay changes saved, as the interactive UI does), creates
    /// her account and waits until she is online: where every test here starts.
    private static func aliceOnline(root: URL, relay: EmbeddedRelay) async throws -> DrivenScreen {
        let session = try await TUIFixtures.openSession("alice", root: root, relay: relay, savesRelayChanges: true)
        session.dispatch(.createAccount)
        _ = try await session.untilLoggedIn("the account")
        try await session.untilOnline()
        return DrivenScreen(session)
    }

    /// Esc dismisses a refusal's toast if it is still up, then Esc goes back to the chat list.
    private static func backToChatList(_ screen: DrivenScreen) async throws {
        let session = screen.session
        if session.state.toast != nil {
            screen.press([.escape])
            _ = try await session.until("the toast cleared") { $0.toast == nil ? true : nil }
        }
        screen.press([.escape])
        _ = try await session.until("the chat list") { $0.router.topScreen == .chatList ? true : nil }
    }

    private static func text(_ frame: [String]) -> String { frame.joined(separator: "\n") }

    /// The screen's own lines: the frame without the notice (toast), status and key lines.
    private static func body(_ frame: [String]) -> [String] { Array(frame.dropLast(3)) }

    @Test func relaysAreAddedShownWithTheirStatusAndRemoved() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-tui-relays-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let home = try await EmbeddedRelay.start(database: nil, logLevel: .error)
        let extra = try await EmbeddedRelay.start(database: nil, logLevel: .error)
        let screen = try await Self.aliceOnline(root: root, relay: home)
        let session = screen.session
        let homeURL = home.url.absoluteString
        let extraURL = extra.url.absoluteString

        // R: the relays screen lists the session's relay, connected.
        #expect(screen.frame[23].contains("R relays"))
        screen.press([.character("R")])
        _ = try await session.until("the Relays screen") { $0.router.topScreen == .relays ? true : nil }
        _ = try await session.until("the relay connected") { state in
            state.network.relays.first { $0.url == homeURL }?.connected == true ? true : nil
        }
        var frame = screen.frame
        #expect(frame[0].contains("Relays"), "\(Self.text(frame))")
        #expect(frame.contains { $0.contains(homeURL) && $0.contains("connected") }, "\(Self.text(frame))")

        // a, a URL that is not one: the core's refusal shows on the screen.
        var mark = session.outcomeMark
        screen.press([.character("a")])
        screen.type("http://not-a-relay")
        screen.press([.enter])
        let refused = try await Self.relayChange(session, after: mark)
        #expect(refused.code == .failed)
        #expect(!FileManager.default.fileExists(atPath: session.home.appendingPathComponent("relays").path))
        frame = screen.frame
        #expect(Self.body(frame).contains { $0.contains("! Not a relay address") }, "\(Self.text(frame))")

        // a, the second relay's URL, Enter: added, and shown connected once the pool reaches it.
        mark = session.outcomeMark
        screen.press([.character("a")])
        #expect(screen.frame.contains { $0.hasPrefix(" Add relay: ") })
        screen.type(extraURL)
        screen.press([.enter])
        let added = try await Self.relayChange(session, after: mark)
        #expect(added.code == .ok, "\(added)")
        #expect(session.state.network.relays.map(\.url) == [homeURL, extraURL])
        _ = try await session.until("the new relay connected", timeout: .seconds(60)) { state in
            state.network.relays.first { $0.url == extraURL }?.connected == true ? true : nil
        }
        frame = screen.frame
        #expect(frame.contains { $0.contains(extraURL) && $0.contains("connected") }, "\(Self.text(frame))")
        #expect(frame.contains { $0.contains("2 of 2 relays connected") }, "\(Self.text(frame))")
        #expect(!Self.body(frame).contains { $0.contains("! Not a relay address") }, "\(Self.text(frame))")
        try await Self.saved([homeURL, extraURL], in: session.home)

        // ↓ r: the highlighted (second) relay is removed.
        mark = session.outcomeMark
        screen.press([.down, .character("r")])
        let removed = try await Self.relayChange(session, after: mark)
        #expect(removed.code == .ok, "\(removed)")
        #expect(session.state.network.relays.map(\.url) == [homeURL])
        frame = screen.frame
        #expect(!frame.contains { $0.contains(extraURL) }, "\(Self.text(frame))")
        try await Self.saved([homeURL], in: session.home)

        // r on the last relay: the core keeps it and says why.
        mark = session.outcomeMark
        screen.press([.character("r")])
        let kept = try await Self.relayChange(session, after: mark)
        #expect(kept.code == .relayUnreachable)
        frame = screen.frame
        #expect(Self.body(frame).contains { $0.contains("! Keep at least one relay") }, "\(Self.text(frame))")
        #expect(frame.contains { $0.contains(homeURL) }, "\(Self.text(frame))")

        try await Self.backToChatList(screen)

        await session.close()
        await extra.stop()
        await home.stop()
    }

    @Test func theNameIsSavedAndShown() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-tui-profile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let relay = try await EmbeddedRelay.start(database: nil, logLevel: .error)
        let screen = try await Self.aliceOnline(root: root, relay: relay)
        let session = screen.session

        screen.press([.character("P")])
        _ = try await session.until("the Profile screen") { $0.router.topScreen == .profile ? true : nil }
        var frame = screen.frame
        #expect(frame[0].contains("Profile"), "\(Self.text(frame))")
        #expect(frame.contains { $0.hasPrefix(" Name: not set") }, "\(Self.text(frame))")

        // Enter on an empty field: the core's refusal shows.
        var mark = session.outcomeMark
        screen.press([.enter])
        let refused = try await Self.outcome(of: .setProfileName, "the refusal", in: session, after: mark)
        #expect(!refused.isSuccess)
        frame = screen.frame
        #expect(Self.body(frame).contains { $0.contains("! Enter a name") }, "\(Self.text(frame))")

        // A name, Enter: saved by the core and shown.
        mark = session.outcomeMark
        screen.type("Alice Liddell")
        #expect(screen.frame.contains { $0.hasPrefix(" New name: Alice Liddell") })
        screen.press([.enter])
        let saved = try await Self.outcome(of: .setProfileName, "the saved name", in: session, after: mark, timeout: .seconds(60))
        #expect(saved.code == .ok, "\(saved)")
        #expect(session.state.profile.name == "Alice Liddell")
        #expect(!session.state.profile.saving)
        frame = screen.frame
        #expect(frame.contains { $0.hasPrefix(" Name: Alice Liddell") }, "\(Self.text(frame))")
        #expect(!Self.body(frame).contains { $0.contains("! Enter a name") }, "\(Self.text(frame))")
        #expect(screen.ui.profileNameInput.isEmpty)

        try await Self.backToChatList(screen)
        await session.close()
        await relay.stop()
    }
}
