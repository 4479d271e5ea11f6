import Foundation
import Logging
import MarmotAppKit
import MarmotCore
import Observation

/// Keeps `$MARMOT_HOME/relays` in step with the relays the core accepted on the Relays screen of the
/// terminal UI or the web page, as `marmot relays add|remove` does, so the next start uses them.
///
/// Why here: the file is the CLI's own configuration (read by `RelayPlan`), a platform concern the
/// core does not know about. It decides from the outcome's code (`change_relays` / `ok`), never from
/// text, and writes the relays the core lists (less the embedded relay, which is per process).
@MainActor
final class RelaySaver {
    private let manager: AppManager
    private let file: URL
    private let embeddedURL: String?
    private let logger: Logger
    /// The sequence of the last outcome looked at: only later outcomes can ask for a save.
    private var seen: UInt64

    init(manager: AppManager, home: URL, embeddedURL: String?) {
        self.manager = manager
        self.file = home.appendingPathComponent("relays")
        self.embeddedURL = embeddedURL
        self.logger = Logger(label: "marmot.relays")
        self.seen = manager.state.lastOutcome?.sequence ?? 0
        arm()
    }

    /// The relays to save: the core's list, in its order, without the embedded relay.
    static func lines(_ relays: [RelayEntry], embeddedURL: String?) -> [String] {
        relays.map(\.url).filter { $0 != embeddedURL }
    }

    /// Writes `relays` to `file`, one URL per line (what `RelayPlan` reads).
    static func write(_ relays: [RelayEntry], embeddedURL: String?, to file: URL) throws {
        try (lines(relays, embeddedURL: embeddedURL).joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
    }

    /// Registers for the next state change; the handler runs at `willSet`, so it hops back to the main
    /// actor to re-arm and then reads the state as set.
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
