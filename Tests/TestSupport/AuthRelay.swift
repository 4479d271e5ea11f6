import Foundation

/// rust-nostr's `LocalRelay` with NIP-42 (`Tests/NostrClientTests/Fixtures/auth_relay.py`, issue 44),
/// run by the interop venv's Python: an independent relay that asks for AUTH.
public enum AuthRelay {
    /// What the relay asks AUTH for.
    public enum Mode: String, Sendable {
        /// Gift wraps (kind 1059) only to a connection authenticated as their `p` recipient.
        case authDM = "auth_dm"
        /// Every REQ and EVENT.
        case both
    }

    public static var script: String {
        SharedFixtures.packageRoot.appendingPathComponent("Tests/NostrClientTests/Fixtures/auth_relay.py").path
    }

    /// What is missing to run it (empty when it can run).
    public static var missing: [String] {
        FileManager.default.isExecutableFile(atPath: InteropKit.python)
            ? [] : [InteropKit.python + " (run scripts/setup.sh --interop)"]
    }

    /// Whether its tests run: when the venv is there, and always under `CI=true` (where a missing
    /// venv then fails in `start`); otherwise they are reported as skipped, with why.
    public static var shouldRun: Bool {
        let missing = missing
        if missing.isEmpty || SharedFixtures.isCI { return true }
        print("SKIP: NIP-42 relay needs \(missing.joined(separator: ", ")); AUTH relay tests skipped")
        return false
    }

    /// Starts the relay in `mode` on a free loopback port; returns it and its URL.
    public static func start(_ mode: Mode) async throws -> (ChildProcess, String) {
        let missing = missing
        if !missing.isEmpty { throw FixtureError.missing(missing.joined(separator: ", ")) }
        let relay = try ChildProcess(
            "auth_relay.py \(mode.rawValue)", executable: InteropKit.python, arguments: [script, "--mode", mode.rawValue])
        guard let url = await relay.nextLine(timeout: 20), url.hasPrefix("ws://127.0.0.1:") else {
            await relay.stop()
            throw InteropError.relayDidNotStart
        }
        return (relay, url)
    }
}
