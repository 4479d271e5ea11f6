import Foundation
import MarmotCore

/// What `marmot account …` does: dispatch auth actions, wait on auth state, render the account.
@MainActor
enum AccountFlows {
    /// `account show` / `create` / `import` output.
    struct AccountInfo: Encodable {
        let npub: String
        let pubkey: String
        let relays: [String]
        let embeddedRelay: Bool
        let home: String
    }

    static func create(_ invocation: Invocation) async throws {
        let home = try invocation.home()
        try refuseExistingAccount(home: home, unless: nil)
        try await invocation.withSession() { session in
            let mark = session.outcomeMark
            session.dispatch(.createAccount)
            let account = try await session.untilLoggedIn("the new account", after: mark)
            try ensureStored(session)
            try await session.untilOnline()
            render(account, session: session, json: invocation.json, headline: "Created account")
        }
    }

    static func importAccount(nsec: String, _ invocation: Invocation) async throws {
        let home = try invocation.home()
        let secret = nsec.trimmingCharacters(in: .whitespacesAndNewlines)
        try refuseExistingAccount(home: home, unless: secret)
        let hadSecret = (try? CLISession.secretStore(home: home).load()) != nil
        try await invocation.withSession() { session in
            let mark = session.outcomeMark
            if !hadSecret {
                // The manager stores the nsec only once the core accepts it (`secretAccepted`).
                session.manager.login(nsec: secret)
            }
            let account: (npub: String, pubkey: String)
            do throws(CLIError) {
                account = try await session.untilLoggedIn("the imported account", after: mark)
            } catch {
                if error.code == .invalidKey { throw CLIError(.invalidKey, "\(error.message) (the input is not a valid nsec)") }
                throw error
            }
            try ensureStored(session)
            try await session.untilOnline()
            render(account, session: session, json: invocation.json, headline: "Imported account")
        }
    }

    static func show(_ invocation: Invocation) async throws {
        try await invocation.withSession(messaging: false) { session in
            let account = try await session.requireAccount()
            render(account, session: session, json: invocation.json, headline: nil)
        }
    }

    /// Prints this account's profile name, or publishes a new one and prints it as published.
    static func name(_ name: String?, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: false) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            struct Named: Encodable { let name: String? }
            guard let name else {
                // The relays' name, not only this device's cache: wait for the look-up to end.
                let current = try await session.until("the name to be looked up on the relays", timeout: .seconds(30)) {
                    (state: AppState) throws(CLIError) -> String?? in
                    state.profile.lookedUp ? .some(state.profile.name) : nil
                }
                Output.emit(Named(name: current), json: invocation.json, text: current ?? "(no name set)")
                return
            }
            let mark = session.outcomeMark
            session.dispatch(.setProfileName(name: name))
            let published = try await session.until("the name to be published", timeout: .seconds(30)) { state throws(CLIError) -> String? in
                if let failure = OutcomeExit.failure(in: state, after: mark, of: [.setProfileName]) { throw failure }
                guard let outcome = state.lastOutcome, outcome.sequence > mark, outcome.operation == .setProfileName,
                      outcome.isSuccess
                else { return nil }
                return state.profile.name
            }
            Output.emit(Named(name: published), json: invocation.json, text: "Name set: \(published)")
        }
    }

    /// Prints the nsec through the core's export path (`AppAction.exportSecret` → `secretExported`),
    /// the same one the app uses behind its confirmation.
    static func export(_ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        let nsec = try await invocation.withSession(messaging: false) { session in
            try await session.requireAccount()
            session.manager.exportSecret()
            let nsec = try await session.until("the core to export the secret", timeout: .seconds(10)) { _ in
                session.manager.exportedSecret
            }
            session.manager.clearExportedSecret()
            return nsec
        }
        Output.status("marmot: warning: this is your secret key. Anyone who has it can read and send your messages; never share it.")
        struct Exported: Encodable { let nsec: String }
        Output.emit(Exported(nsec: nsec), json: invocation.json, text: nsec)
    }

    // MARK: Helpers

    /// Fails with `.accountExists` when the home holds an account other than `secret`'s.
    private static func refuseExistingAccount(home: URL, unless secret: String?) throws(CLIError) {
        let store = CLISession.secretStore(home: home)
        let stored: String?
        do { stored = try store.load() } catch { throw CLIError(.failure, "cannot read \(store.fileURL.path): \(error)") }
        guard let stored, stored != secret else { return }
        throw CLIError(
            .accountExists,
            "\(home.path) already holds an account (see `marmot account show`); use another MARMOT_HOME")
    }

    /// The manager saves the nsec as a side effect; a failure there means the account would be lost.
    private static func ensureStored(_ session: CLISession) throws(CLIError) {
        if let problem = session.manager.secretStoreProblem { throw CLIError(.failure, problem.message) }
        guard (try? session.secretStore.load()) ?? nil != nil else {
            throw CLIError(.failure, "the nsec was not saved to \(session.secretStore.fileURL.path)")
        }
    }

    private static func render(
        _ account: (npub: String, pubkey: String), session: CLISession, json: Bool, headline: String?
    ) {
        let relays = session.relayPlan.urls.map(\.absoluteString)
        let info = AccountInfo(
            npub: account.npub, pubkey: account.pubkey, relays: relays,
            embeddedRelay: session.relayPlan.usesEmbeddedRelay, home: session.home.path)
        var lines: [String] = []
        if let headline { lines.append(headline) }
        lines.append("npub    \(account.npub)")
        lines.append("pubkey  \(account.pubkey)")
        lines.append(
            "relays  \(relays.isEmpty ? "embedded (127.0.0.1, started per command)" : relays.joined(separator: " "))")
        Output.emit(info, json: json, text: lines.joined(separator: "\n"))
    }
}
