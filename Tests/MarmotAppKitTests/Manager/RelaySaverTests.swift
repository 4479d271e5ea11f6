import Foundation
import MarmotCore
import Testing

@testable import MarmotAppKit

/// The relays file kept by `RelaySaver` (the CLI's `$MARMOT_HOME/relays`, the app's `<data>/relays`):
/// written after a relay change the core accepted, never after a refused one, and read back at the
/// next start by `RelayDefaults.configured(file:)`.
@MainActor
@Suite("Relay saver")
struct RelaySaverTests {
    static func state(rev: UInt64, relays: [String], outcome: OutcomeCode, sequence: UInt64) -> AppState {
        var state = Fixtures.loggedIn(rev: rev)
        state.network.relays = relays.map { RelayEntry(url: $0, connected: true) }
        state.lastOutcome = OperationOutcome(operation: .changeRelays, code: outcome, message: "", sequence: sequence)
        return state
    }

    @Test("an accepted change is saved (less the embedded relay) and read at the next start; a refused one is not")
    func savesAcceptedChanges() async throws {
        let folder = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("relays")
        let manager = AppManager(core: ScriptedCore(), secretStore: InMemorySecretStore(secret: nil))
        let saver = RelaySaver(manager: manager, file: file, embeddedURL: "ws://127.0.0.1:9")

        manager.receive(.fullState(Self.state(
            rev: 1, relays: ["ws://127.0.0.1:9", "wss://a.example", "wss://b.example"], outcome: .ok, sequence: 1)))
        try await settle("relays saved") { FileManager.default.fileExists(atPath: file.path) }
        #expect(try String(contentsOf: file, encoding: .utf8) == "wss://a.example\nwss://b.example\n")
        #expect(RelayDefaults.configured(environment: [:], file: file).relays.map(\.absoluteString) == ["wss://a.example", "wss://b.example"])

        // A refused change leaves the file as it was.
        manager.receive(.fullState(Self.state(rev: 2, relays: ["wss://a.example"], outcome: .failed, sequence: 2)))
        try await Task.sleep(for: .milliseconds(100))
        #expect(try String(contentsOf: file, encoding: .utf8) == "wss://a.example\nwss://b.example\n")
        withExtendedLifetime(saver) {}
    }

    @Test("the relays file is owner-only (0600) whatever the umask, also when it replaces a wider one")
    func theFileIsOwnerOnly() throws {
        let folder = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("sub").appendingPathComponent("relays")
        func mode(_ url: URL) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) & 0o777
        }
        try RelaySaver.write([RelayEntry(url: "wss://a.example", connected: true)], embeddedURL: nil, to: file)
        #expect(try mode(file) == 0o600)
        #expect(try mode(file.deletingLastPathComponent()) == 0o700)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        try RelaySaver.write([RelayEntry(url: "wss://b.example", connected: true)], embeddedURL: nil, to: file)
        #expect(try mode(file) == 0o600)
        #expect(try String(contentsOf: file, encoding: .utf8) == "wss://b.example\n")
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path) == ["relays"])
    }
}
