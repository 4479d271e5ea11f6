#if canImport(Observation)
    import Foundation
    import MarmotCore
    import Observation

    /// The one object between the core and SwiftUI (MVP spec, iOS AppManager; bible §4.1.2–4.1.3).
    ///
    /// Mirrors the core's state on the main actor, keeping it equal to the core's snapshot at
    /// `lastRevApplied`: updates arrive in order through one stream, side effects run first, stale revs
    /// are dropped, the next rev replaces its slice, and a forward gap triggers one resync from
    /// `state()`. It also owns the secret store, acting only on the core's side effects: the nsec is
    /// saved on `accountCreated` and `secretAccepted` (a login the core accepted), deleted on
    /// `secretForgotten` (logout), and handed back at launch (MVP spec, Key Storage). It holds no timer
    /// and no rule of its own: toasts expire in the core, paging is the core's (issue 16).
    @MainActor
    @Observable
    public final class AppManager: AppReconciler {
        /// The mirrored state the views render.
        public private(set) var state: AppState
        /// The last secret-store failure the user has not dismissed.
        public private(set) var secretStoreProblem: SecretStoreProblem?
        /// The nsec the core handed out after the user confirmed an export (`exportSecret()`), until
        /// the view that shows it calls `clearExportedSecret()`. Never written anywhere.
        public private(set) var exportedSecret: String?
        /// Set to the rev seen when a stored session was handed to the core at launch, until the core
        /// commits anything after it; covers the moment before the core marks itself busy.
        private(set) var restorePendingAfterRev: UInt64?

        @ObservationIgnored private let core: any AppCoreHandle
        @ObservationIgnored private let secretStore: any SecretStore
        @ObservationIgnored private let pipe: AsyncStream<AppUpdate>.Continuation
        /// Updates received while a resync is in flight, replayed onto its snapshot; nil when none is.
        @ObservationIgnored private var resyncBuffer: [AppUpdate]?
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
        /// `bootProblem` is a secret-store failure met while building the core (see
        /// `provisionInstallationSecret(in:)`), shown as `secretStoreProblem`.
        public init(
            core: any AppCoreHandle, secretStore: any SecretStore, bootProblem: SecretStoreProblem? = nil
        ) {
            self.core = core
            self.secretStore = secretStore
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

        /// The secret store follows the core's instructions only (issue 16: no guessing from toasts).
        private func runSideEffects(of update: AppUpdate) {
            switch update {
            case .accountCreated(_, let nsec, _, _), .secretAccepted(_, let nsec, _): saveSecret(nsec)
            case .secretForgotten: deleteSecret()
            case .secretExported(_, let nsec): exportedSecret = nsec
            default: break
            }
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

        /// The bytes of attachment `index` of a message, for showing or saving it (issue 28); the
        /// core downloads and decrypts it first when it is not on this device.
        public func attachmentData(chatID: ChatID, messageID: MessageID, index: Int) async throws(AttachmentError) -> Data {
            try await core.attachmentData(chatID: chatID, messageID: messageID, index: index)
        }

        /// The bytes of a chat's group picture, for the chat list and header; the core downloads
        /// and decrypts it first when it is not on this device.
        public func chatImageData(chatID: ChatID) async throws(AttachmentError) -> Data {
            try await core.chatImageData(chatID: chatID)
        }

        /// Forwards `action` to the core.
        public func dispatch(_ action: AppAction) {
            if case .logout = action { restorePendingAfterRev = nil }
            core.dispatch(action)
        }

        /// Imports an account: the core checks the nsec and, if it accepts it, tells this manager to
        /// keep it (`secretAccepted`); a refused one is never stored (MVP spec, Key Storage).
        public func login(nsec: String) {
            dispatch(.login(nsec: nsec))
        }

        /// Logs out; the core's `secretForgotten` makes this manager delete the stored nsec.
        public func logout() {
            dispatch(.logout)
        }

        /// Asks the core for the nsec, after the user confirmed; it arrives in `exportedSecret`.
        public func exportSecret() {
            dispatch(.exportSecret)
        }

        /// Forgets the exported nsec once the view showing it goes away.
        public func clearExportedSecret() {
            exportedSecret = nil
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

        /// Called when a message row appears: the core's rule (`shouldLoadOlder(whenShowing:)`) says
        /// whether to ask for older messages; the core picks the page size (MVP spec, Chat screen).
        public func messageAppeared(_ messageID: MessageID) {
            guard let chat = state.currentChat, chat.shouldLoadOlder(whenShowing: messageID) else { return }
            core.dispatch(.loadOlder(chatID: chat.chatID))
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

        private func deleteSecret() {
            do {
                try secretStore.delete()
            } catch {
                secretStoreProblem = SecretStoreProblem(operation: .delete, error: error)
            }
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
