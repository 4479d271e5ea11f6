#if canImport(Observation)
    import Foundation
    import MarmotCore

    extension AppManager {
        /// The app's manager as shipped: a `MarmotApp` over `defaultDataDirectory()` with Marmot
        /// messaging on `productionConfiguration()`'s relays, and the platform's secret store
        /// (bible §4.1.2.1), which also provides the installation secret of the storage key (made
        /// and saved there at first launch, before the core is built).
        public static func production(configuration: AppConfiguration = productionConfiguration()) -> AppManager {
            let dataDirectory = defaultDataDirectory()
            let secretStore = platformSecretStore(dataDirectory: dataDirectory)
            let (configured, problem) = Self.configuration(configuration, withInstallationSecretFrom: secretStore)
            let core = MarmotApp(dataDirectory: dataDirectory, configuration: configured)
            return AppManager(core: core, secretStore: secretStore, bootProblem: problem)
        }

        /// `<data>/relays`: the app's relays, one URL per line, read at launch and kept by a
        /// `RelaySaver` when the user changes them.
        public nonisolated static var relaysFile: URL { defaultDataDirectory().appendingPathComponent("relays") }

        /// Marmot messaging over the relays named by `MARMOT_RELAYS` or `<data>/relays`, else the
        /// public relays (an app has no embedded relay).
        public nonisolated static func productionConfiguration() -> AppConfiguration {
            let configured = RelayDefaults.configured(file: relaysFile)
            let relays = configured.relays.isEmpty ? RelayDefaults.publicRelays : configured.relays
            var configuration = AppConfiguration(relayURLs: relays, messagingServiceFactory: MarmotMessaging.factory())
            #if canImport(os)
                // The core's lines go to the unified log (Console.app), never message text or secrets.
                configuration.logHandlerFactory = { OSLogHandler(subsystem: "org.marmot.Marmot", label: $0) }
            #endif
            return configuration
        }

        /// `Application Support/Marmot` of the current user (the app's container on iOS), where the
        /// core keeps one folder per account.
        public nonisolated static func defaultDataDirectory() -> URL {
            let base =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? FileManager.default.temporaryDirectory
            return base.appendingPathComponent("Marmot", isDirectory: true)
        }

        /// The Keychain where there is one, else a 0600 file under `dataDirectory`; the installation
        /// secret is a second item of the same store (Keychain account `install-secret`, or the file
        /// `secrets/install-secret`).
        public nonisolated static func platformSecretStore(dataDirectory: URL) -> any SecretStore & InstallationSecretStore {
            #if canImport(Security)
                KeychainSecretStore(service: Bundle.main.bundleIdentifier ?? "org.marmot.Marmot")
            #else
                FileSecretStore(
                    fileURL: dataDirectory.appendingPathComponent("secrets", isDirectory: true)
                        .appendingPathComponent("nsec"))
            #endif
        }
    }
#endif
