import Foundation
import Logging

/// The options every scriptable command shares, copied out of the parsed command so the work can
/// run on the main actor (where `AppManager` lives).
struct Invocation: Sendable {
    var relays: [String]
    var json: Bool
    var logLevel: Logger.Level

    init(relay: RelayOptions, output: OutputOptions) {
        self.init(relays: relay.relays, output: output)
    }

    /// For commands without `--relay`.
    init(relays: [String] = [], output: OutputOptions) {
        self.relays = relays
        self.json = output.json
        self.logLevel = output.logLevel
    }

    /// `$MARMOT_HOME`, created (0700) when missing, refused when another user owns it.
    func home() throws(CLIError) -> URL {
        try MarmotHome.prepare()
    }

    /// Checks the relay configuration (usage errors first), then fails with `.noAccount` when
    /// `$MARMOT_HOME` holds no nsec, before anything is started.
    func requireStoredAccount() throws(CLIError) {
        let home = try home()
        _ = try RelayPlan.resolve(options: relays, home: home)
        let store = CLISession.secretStore(home: home)
        let stored: String?
        do { stored = try store.load() } catch { throw CLIError(.failure, "cannot read \(store.fileURL.path): \(error)") }
        if stored == nil { throw CLIError.noAccount() }
    }

    /// Opens the process's one session over `$MARMOT_HOME` with the resolved relays.
    @MainActor
    func openSession(
        messaging: Bool = true, publishKeyPackage: Bool = true, recordsUpdates: Bool = false
    ) async throws(CLIError) -> CLISession {
        let home = try home()
        let plan = try RelayPlan.resolve(options: relays, home: home)
        var configuration = CLISession.Configuration(home: home, relays: plan, logLevel: logLevel, messaging: messaging)
        configuration.publishKeyPackage = publishKeyPackage
        configuration.recordsUpdates = recordsUpdates
        return try await CLISession.open(configuration)
    }

    /// Runs `body` with the process's session and stops the session's embedded relay afterwards,
    /// whether `body` succeeds or throws.
    @MainActor
    func withSession<Value>(
        messaging: Bool = true, publishKeyPackage: Bool = true, recordsUpdates: Bool = false,
        _ body: (CLISession) async throws -> Value
    ) async throws -> Value {
        let session = try await openSession(
            messaging: messaging, publishKeyPackage: publishKeyPackage, recordsUpdates: recordsUpdates)
        do {
            let value = try await body(session)
            await session.close()
            return value
        } catch {
            await session.close()
            throw error
        }
    }
}
