import Foundation
import Nostr

/// Account creation, login, session restore and logout.
///
/// Keys are generated or parsed, and the account directory created, off the actor; the nsec is
/// handed to the platform once (`accountCreated`) and otherwise only kept in memory for the session.
extension AppCore {
    func beginSession(_ kind: SessionKind, nsec: String?) {
        guard !state.busy.isAuthenticating else {
            logger.notice("authentication already in progress; action ignored")
            return
        }
        authAttempt += 1
        let attempt = authAttempt
        setBusy(kind, true)
        let dataDirectory = self.dataDirectory
        spawn {
            do throws(SessionSetupError) {
                let prepared = try Self.prepareSession(kind, nsec: nsec, dataDirectory: dataDirectory)
                return .sessionPrepared(attempt: attempt, kind: kind, .success(prepared))
            } catch {
                return .sessionPrepared(attempt: attempt, kind: kind, .failure(error))
            }
        }
    }

    /// Makes or imports the keys and creates `<dataDirectory>/<pubkey hex>/`.
    nonisolated static func prepareSession(
        _ kind: SessionKind, nsec: String?, dataDirectory: URL
    ) throws(SessionSetupError) -> PreparedSession {
        let keys: Keys
        if kind == .create {
            keys = .generate()
        } else {
            let text = (nsec ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            do { keys = try Keys(importing: text) } catch { throw .invalidKey }
        }
        let directory = dataDirectory.appendingPathComponent(keys.publicKey.hex, isDirectory: true)
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // Owner-only whatever the umask, and tightened if it already existed wider.
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        } catch {
            throw .storage(reason: ServiceError(error).reason)
        }
        return PreparedSession(keys: keys, directory: directory)
    }

    func sessionPrepared(attempt: UInt64, kind: SessionKind, result: Result<PreparedSession, SessionSetupError>) {
        guard attempt == authAttempt else { return }
        switch result {
        case .failure(.invalidKey):
            setBusy(kind, false)
            finish(kind.operation, .invalidNsec, "Invalid nsec: enter a key that starts with nsec1")
        case .failure(.storage(let reason)):
            setBusy(kind, false)
            finish(kind.operation, .storageFailed, "Could not open account storage: \(reason)")
        case .success(let prepared):
            if let current = session, current.myPublicKey == prepared.keys.publicKey, kind != .create {
                setBusy(kind, false)
                finish(kind.operation, .ok)
                return
            }
            // The secret goes out before any state changes, in a commit of its own: a new account's
            // to be stored, an accepted login's to be kept (a restored one is stored already).
            switch kind {
            case .create: emitAccountCreated(prepared.keys)
            case .login: emitSecretAccepted(prepared.keys)
            case .restore: break
            }
            setBusy(kind, false)
            endSession()
            openSession(prepared)
            finish(kind.operation, .ok)
            // A restore stays busy until the stored chat list is in (bible §4.1.2.1: no empty flash).
            if kind == .restore, session?.service != nil { state.busy.restoringSession = true }
        }
    }

    private func openSession(_ prepared: PreparedSession) {
        let id = nextSessionID()
        let context = SessionContext(
            keys: prepared.keys, accountDirectory: prepared.directory, relayURLs: configuration.relayURLs,
            clock: configuration.clock, installationSecret: configuration.installationSecret)
        let service = configuration.messagingServiceFactory?(context)
        let session = Session(id: id, keys: prepared.keys, directory: prepared.directory, service: service)
        session.relayURLs = configuration.relayURLs
        self.session = session
        let publicKey = prepared.keys.publicKey
        state.auth = .loggedIn(npub: publicKey.npub, pubkey: publicKey.hex)
        state.router = Router(defaultScreen: .chatList)
        state.busy.creatingChat = false
        state.toast = nil
        state.network =
            service == nil
            ? NetworkState() : NetworkState(totalRelays: configuration.relayURLs.count, sync: .connecting)
        logger.info("session opened", metadata: ["pubkey": "\(publicKey.hex)"])
        if let service { startService(service, session: session) }
    }

    /// Starts the messaging layer, loads the chat list and its unread backlog, then forwards the
    /// service's events.
    private func startService(_ service: any MessagingService, session: Session) {
        let id = session.id
        let inbox = self.inbox
        session.eventPump = Task.detached {
            let events: AsyncStream<MessagingEvent>
            do {
                events = try await service.start()
            } catch {
                inbox.yield(.event(.serviceFailed(session: id, operation: "start", ServiceError(error))))
                return
            }
            // Before the chats, so a 1:1 with someone blocked is never shown (issue 48).
            do {
                inbox.yield(.event(.blockedLoaded(session: id, .success(try await service.blockedPeople()))))
            } catch {
                inbox.yield(.event(.blockedLoaded(session: id, .failure(ServiceError(error)))))
            }
            do {
                let chats = try await service.listChats()
                inbox.yield(.event(.chatsLoaded(session: id, chats)))
                if let backlog = await Self.unreadBacklog(chats, service: service, session: id) { inbox.yield(.event(backlog)) }
            } catch {
                inbox.yield(.event(.serviceFailed(session: id, operation: "load chats", ServiceError(error))))
            }
            inbox.yield(.event(.blossomServersSet(session: id, change: false, .success(await service.blossomServers()))))
            for await event in events {
                inbox.yield(.event(.messaging(session: id, event)))
            }
        }
    }

    /// Ends the session: first the `secretForgotten` side effect (the platform deletes the stored
    /// nsec), then one state change back to the login screen.
    func logout() {
        authAttempt += 1
        emitSecretForgotten()
        if session != nil { logger.info("session closed") }
        endSession()
        state.router = .loggedOut
        state.auth = .loggedOut
        state.busy = BusyState()
        state.toast = nil
        state.lastOutcome = nil
        state.network = NetworkState()
    }

    /// Drops the session (and its keys) and stops its messaging service in the background.
    func endSession() {
        guard let session else { return }
        self.session = nil
        session.eventPump?.cancel()
        session.outbox?.finish()
        session.outboxPump?.cancel()
        session.relayClock?.cancel()
        session.muteClock?.task.cancel()
        if let service = session.service {
            Task.detached { await service.stop() }
        }
    }

    func setBusy(_ kind: SessionKind, _ busy: Bool) {
        switch kind {
        case .create: state.busy.creatingAccount = busy
        case .login: state.busy.loggingIn = busy
        case .restore: state.busy.restoringSession = busy
        }
    }
}

extension SessionKind {
    /// The user operation this kind of session start is.
    var operation: UserOperation {
        switch self {
        case .create: .createAccount
        case .login: .login
        case .restore: .restoreSession
        }
    }
}
