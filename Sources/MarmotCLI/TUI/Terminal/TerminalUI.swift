import Foundation
import MarmotAppKit
import MarmotCore

/// The interactive full-screen client: renders the manager's state and dispatches what keys mean.
///
/// A thin platform layer (seed 001 §4.4): `TUIRenderer` draws, `TUIKeyMap` maps keys, and this driver
/// only moves data between them, the terminal and the `AppManager`, whose rev-checked mirror is the
/// state shown. The manager keeps the nsec in its secret store on the core's word; the core clears
/// its toasts itself.
enum TerminalUI {
    /// How often the driver looks for new state, size changes and busy-spinner steps.
    static let tickInterval: Duration = .milliseconds(30)

    /// Runs the UI on the terminal until the user quits (Ctrl-C, or q on a root screen), a signal
    /// (SIGINT, SIGTERM, SIGHUP) arrives or standard input closes. The terminal is restored on every
    /// way out, errors included.
    ///
    /// `statusLine` is read on every frame and shown as is under the notice line (e.g. relay status).
    /// While the UI is up, standard error (when it is the terminal) goes to `logFile`, or nowhere
    /// without one, so log lines do not tear the screen.
    @MainActor
    static func run(
        manager: AppManager, statusLine: @escaping @Sendable () -> String, logFile: URL? = nil,
        saver: AttachmentSaver? = nil
    ) async throws {
        let terminal = try RawTerminal.enter()
        defer { terminal.restore() }
        let stderr = StderrRedirect(logFile: logFile)
        defer { stderr.restore() }
        let (events, sink) = AsyncStream<TUIEvent>.makeStream(bufferingPolicy: .unbounded)
        let reader = KeyReader(sink: sink)
        reader.start()
        defer { reader.stop() }
        let signals = SignalWatcher(sink: sink)
        defer { signals.cancel() }
        let ticker = Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(for: tickInterval)  // renderer-check: allow (frame tick: spinner, resize)
                sink.yield(.tick)
            }
        }
        defer { ticker.cancel() }

        var loop = DriverLoop(
            manager: manager, statusLine: statusLine, measure: RawTerminal.size, write: RawTerminal.write, saver: saver)
        defer { loop.finish() }
        loop.draw()
        for await event in events {
            loop.handle(event)
            if loop.ui.shouldQuit { break }
            loop.draw()
        }
    }
}
