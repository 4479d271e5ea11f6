#if canImport(Observation)
    import Foundation
    import MarmotCore
    import Observation

    /// The one object between the core and SwiftUI (MVP spec, iOS AppManager; bible §4.1.2–4.1.3).
    ///
    /// Mirrors the core's state on the main actor, keeping it equal to the core's snapshot at
    /// `lastRevApplied`: updates arrive in order through one stream, side effects run first, stale revs
    /// are dropped, the next rev replaces its slice, and a forward gap triggers one resync from
    /// `state()`. It also owns the secret store: the nsec is saved when the core creates an account or
    /// the user logs in, handed back at launch, and deleted on logout (MVP spec, Key Storage).
    @MainActor
    @Observable
    public final class AppManager: AppReconciler {
        /// The mirrored state the views render.
        public private(set) var state: AppState
        /// The last secret-store failure the user has not dismissed.
        public private(set) var secretStoreProblem: SecretStoreProblem?
        /// Set to the rev seen when a stored session was handed to the core at launch, until the core
        /// commits anything after it; covers the moment before the core marks itself busy.
        private(set) var restorePendingAfterRev: UInt64?

        @ObservationIgnored private let core: any AppCoreHandle
        @ObservationIgnored private let secretStore: any SecretStore
        @ObservationIgnored private let pipe: AsyncStream<AppUpdate>.Continuation
        /// Updates received while a resync is in flight, replayed onto its snapshot; nil when none is.
        @ObservationIgnored private var resyncBuffer: [AppUpdate]?
        @ObservationIgnored private let toastDuration: Duration
        /// The nsec of a login the core has not yet accepted or refused; refused ones are removed
        /// from the store again so a typo is not restored at every launch.
        @ObservationIgnored private var pendingLoginSecret: String?
        /// How many resyncs have started, for tests.
        @ObservationIgnored private(set) var resyncsStarted = 0

        /// The rev of the mirrored state.
        public var lastRevApplied: UInt64 { state.rev }

        /// True while a stored session is being restored: the UI shows a loading surface, never the
        /// login screen (bible §4.1.2.1, §6.6).
        public var isRestoring: Bool { restorePendingAfterRev != nil || state.busy.restoringSession }

        /// Boots over `core`: hydrates from `state()`, listens for updates, then restores the session
        /// whose nsec `secretStore` holds, if any (bible §4.1.2.1).
        ///
        /// `toastDuration` is how long a toast stays before `toastDisplayed(_:)` clears it;
        /// `bootProblem` is a secret-store failure met while building the core (see
        /// `provisionInstallationSecret(in:)`), shown as `secretStoreProblem`.
        public init(
            core: any AppCoreHandle, secretStore: any SecretStore, toastDuration: Duration = .seconds(3),
            bootProblem: SecretStoreProblem? = nil
        ) {
            self.core = core
            self.secretStore = secretStore
            self.toastDuration = toastDuration
            self.secretStoreProblem = bootProblem
            let (updates, pipe) = AsyncStream<AppUpdate>.makeStream(bufferingPolicy: .unbounded)
            self.pipe = pipe
            self.state = core.state()
            Task { [weak self] in
                for await update in updates { self?.receive(update) }
            }
            core.listenForUpdates(UpdateForwarder(pipe: pipe))
            restoreStoredSession()
        }

        deinit {
            pipe.finish()
        }

        // MARK: Updates

        /// Takes an update on any thread and queues it for the main actor, keeping the core's order.
        public nonisolated func reconcile(_ update: AppUpdate) {
            pipe.yield(update)
        }

        /// Handles one update on the main actor: side effects first, whatever its rev, then the rev rule.
        func receive(_ update: AppUpdate) {
            runSideEffects(of: update)
            route(update)
        }

        private func runSideEffects(of update: AppUpdate) {
            guard case .accountCreated(_, let nsec, _, _) = update else { return }
            saveSecret(nsec)
        }

        private func route(_ update: AppUpdate) {
            if resyncBuffer != nil {
                resyncBuffer?.append(update)
                return
            }
            switch RevisionGate.disposition(of: update, onto: state) {
            case .stale: return
            case .apply(let next): adopt(next)
            case .gap: beginResync()
            }
        }

        private func adopt(_ next: AppState) {
            state = next
            if let pending = restorePendingAfterRev, next.rev > pending { restorePendingAfterRev = nil }
            settlePendingLogin(next)
        }

        /// A login ends logged in (the nsec stays stored) or refused with a toast (it is removed).
        private func settlePendingLogin(_ next: AppState) {
            guard let secret = pendingLoginSecret, !next.busy.loggingIn else { return }
            if next.auth.isLoggedIn {
                pendingLoginSecret = nil
            } else if next.toast != nil {
                pendingLoginSecret = nil
                guard (try? secretStore.load()) == secret else { return }
                do {
                    try secretStore.delete()
                } catch {
                    secretStoreProblem = SecretStoreProblem(operation: .delete, error: error)
                }
            }
        }

        // MARK: Resync

        /// Reads `state()` off the main actor, once however many gaps arrive meanwhile.
        ///
        /// The update that revealed the gap is covered by the snapshot (the core writes its snapshot
        /// before emitting); later updates are buffered and replayed onto it, so one committed after
        /// the read is not lost.
        private func beginResync() {
            guard resyncBuffer == nil else { return }
            resyncBuffer = []
            resyncsStarted += 1
            let core = self.core
            Self.snapshotQueue.async { [weak self] in
                let snapshot = core.state()
                let manager = self
                Task { @MainActor in manager?.finishResync(snapshot) }
            }
        }

        private func finishResync(_ snapshot: AppState) {
            guard let buffered = resyncBuffer else { return }
            resyncBuffer = nil
            if snapshot.rev >= state.rev, snapshot != state { adopt(snapshot) }
            for update in buffered { route(update) }
        }

        /// Where `state()` is read for a resync: a plain dispatch queue, so a slow read never holds a
        /// thread of Swift's cooperative pool.
        private static let snapshotQueue = DispatchQueue(label: "marmot.appkit.resync")

        // MARK: Intents

        /// Forwards `action` to the core; login and logout also update the secret store (see
        /// `login(nsec:)` and `logout()`).
        public func dispatch(_ action: AppAction) {
            switch action {
            case .login(let nsec): login(nsec: nsec)
            case .logout: logout()
            default: core.dispatch(action)
            }
        }

        /// Imports an account: stores the nsec, then asks the core to log in (MVP spec, Key Storage).
        public func login(nsec: String) {
            saveSecret(nsec)
            pendingLoginSecret = nsec
            core.dispatch(.login(nsec: nsec))
        }

        /// Logs out and forgets the stored nsec.
        public func logout() {
            restorePendingAfterRev = nil
            pendingLoginSecret = nil
            core.dispatch(.logout)
            do {
                try secretStore.delete()
            } catch {
                secretStoreProblem = SecretStoreProblem(operation: .delete, error: error)
            }
        }

        /// On return to the foreground: resyncs the mirror, then lets the core refresh (MVP spec,
        /// Foreground Resume).
        public func onForeground() {
            beginResync()
            core.dispatch(.foregrounded)
        }

        /// Called by the navigation stack's binding with the stack it now shows; reports it to the
        /// core only when it differs from the router's, so core-driven changes do not echo back.
        public func setScreenStack(_ stack: [Screen]) {
            guard stack != state.router.screenStack else { return }
            core.dispatch(.updateScreenStack(stack))
        }

        /// Called when a message row appears: reaching the oldest loaded message asks for older ones
        /// when the core says there are (MVP spec, Chat screen).
        public func messageAppeared(_ messageID: MessageID) {
            guard let chat = state.currentChat, chat.canLoadOlder, chat.messages.first?.id == messageID else { return }
            core.dispatch(
                .loadOlderMessages(chatID: chat.chatID, beforeMessageID: messageID, limit: Self.olderMessagesPageSize))
        }

        /// Messages requested per older page.
        public static let olderMessagesPageSize: UInt32 = 50

        /// Called when `toast` is shown (e.g. from `.task(id:)`): clears it after the toast duration
        /// unless it was replaced or the task was cancelled.
        public func toastDisplayed(_ toast: String?) async {
            guard let toast else { return }
            do {
                try await Task.sleep(for: toastDuration)
            } catch {
                return
            }
            guard state.toast == toast else { return }
            core.dispatch(.clearToast)
        }

        /// Hides the current secret-store problem.
        public func dismissSecretStoreProblem() {
            secretStoreProblem = nil
        }

        // MARK: Secrets

        /// `configuration` with this installation's storage secret from `store` (unless it already
        /// has one), made and saved there the first time, and the problem met getting it, if any (to
        /// pass to `init(bootProblem:)`). The platform calls it at boot, before building the core.
        /// The secret is never deleted (not on logout either), so the same nsec reopens its data on
        /// this device.
        public nonisolated static func configuration(
            _ configuration: AppConfiguration, withInstallationSecretFrom store: any InstallationSecretStore
        ) -> (AppConfiguration, SecretStoreProblem?) {
            guard configuration.installationSecret == nil else { return (configuration, nil) }
            var configured = configuration
            do {
                configured.installationSecret = try store.provisionInstallationSecret()
                return (configured, nil)
            } catch {
                return (configured, SecretStoreProblem(operation: .installationSecret, error: error))
            }
        }

        private func restoreStoredSession() {
            let stored: String?
            do {
                stored = try secretStore.load()
            } catch {
                secretStoreProblem = SecretStoreProblem(operation: .load, error: error)
                return
            }
            guard let stored else { return }
            restorePendingAfterRev = state.rev
            core.dispatch(.restoreSession(nsec: stored))
        }

        private func saveSecret(_ nsec: String) {
            do {
                try secretStore.save(nsec)
            } catch {
                secretStoreProblem = SecretStoreProblem(operation: .save, error: error)
            }
        }
    }

    /// The reconciler handed to the core: it holds only the manager's queue, so the core's listener
    /// does not keep the manager alive.
    private struct UpdateForwarder: AppReconciler {
        let pipe: AsyncStream<AppUpdate>.Continuation

        func reconcile(_ update: AppUpdate) {
            pipe.yield(update)
        }
    }
#endif
