#if canImport(Observation)
    import Foundation
    import Logging
    import MarmotCore
    import Observation

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// Keeps a relays file (one URL per line, what `RelayDefaults.configured(file:)` reads at the next
    /// start) in step with the relays the core accepted: the CLI's `$MARMOT_HOME/relays` (terminal UI,
    /// web page) and the app's `<data>/relays` (`AppManager.relaysFile`), so relay changes outlive a
    /// relaunch.
    ///
    /// Why here: the file is the platform's own configuration, which the core does not know about. It
    /// decides from the outcome's code (`change_relays` / `ok`), never from text, and writes the
    /// relays the core lists (less an embedded relay, which is per process).
    @MainActor
    public final class RelaySaver {
        private let manager: AppManager
        private let file: URL
        private let embeddedURL: String?
        private let logger: Logger
        /// The sequence of the last outcome looked at: only later outcomes can ask for a save.
        private var seen: UInt64

        /// Starts watching `manager`'s state; saves to `file` after each accepted relay change.
        public init(manager: AppManager, file: URL, embeddedURL: String? = nil) {
            self.manager = manager
            self.file = file
            self.embeddedURL = embeddedURL
            self.logger = Logger(label: "marmot.relays")
            self.seen = manager.state.lastOutcome?.sequence ?? 0
            arm()
        }

        /// The relays to save: the core's list, in its order, without the embedded relay.
        public nonisolated static func lines(_ relays: [RelayEntry], embeddedURL: String?) -> [String] {
            relays.map(\.url).filter { $0 != embeddedURL }
        }

        /// Writes `relays` to `file`, one URL per line (creating its folder, 0700, if needed), mode 0600.
        ///
        /// Owner-only whatever the umask: the list tells which relays, hence which people, this
        /// account talks to. Written to a 0600 temporary file first, then renamed over `file`.
        public nonisolated static func write(_ relays: [RelayEntry], embeddedURL: String?, to file: URL) throws {
            let manager = FileManager.default
            let folder = file.deletingLastPathComponent()
            if !manager.fileExists(atPath: folder.path) {
                try manager.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
            }
            let text = lines(relays, embeddedURL: embeddedURL).joined(separator: "\n") + "\n"
            let temporary = folder.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
            guard manager.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
            }
            do {
                try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary.path)
                let handle = try FileHandle(forWritingTo: temporary)
                defer { try? handle.close() }
                try handle.write(contentsOf: Data(text.utf8))
                try handle.synchronize()
                if rename(temporary.path, file.path) != 0 {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
                }
            } catch {
                try? manager.removeItem(at: temporary)
                throw error
            }
        }

        /// Registers for the next state change; the handler runs at `willSet`, so it hops back to the
        /// main actor to re-arm and then reads the state as set.
        private func arm() {
            withObservationTracking {
                _ = manager.state
            } onChange: { [weak self] in
                Task { @MainActor in
                    self?.arm()
                    self?.check()
                }
            }
        }

        private func check() {
            guard let outcome = manager.state.lastOutcome, outcome.sequence > seen else { return }
            seen = outcome.sequence
            guard outcome.operation == .changeRelays, outcome.isSuccess else { return }
            do {
                try Self.write(manager.state.network.relays, embeddedURL: embeddedURL, to: file)
            } catch {
                logger.error("the relays changed but \(file.path) could not be written", metadata: ["error": "\(error)"])
            }
        }
    }
#endif
