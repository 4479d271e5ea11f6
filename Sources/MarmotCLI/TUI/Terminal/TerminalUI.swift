import Foundation
import MarmotAppKit
import MarmotCore

/// The interactive full-screen client: renders the manager's state and dispatches what keys mean.
///
/// A thin platform layer (seed 001 §4.4): `TUIRenderer` draws, `TUIKeyMap` maps keys, and this driver
/// only moves data between them, the terminal and the `AppManager`, whose rev-checked mirror is the
/// state shown. The manager also keeps the nsec in its secret store and clears toasts after a while.
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
        manager: AppManager, statusLine: @escaping @Sendable () -> String, logFile: URL? = nil
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
                try? await Task.sleep(for: tickInterval)
                sink.yield(.tick)
            }
        }
        defer { ticker.cancel() }

        var loop = DriverLoop(manager: manager, statusLine: statusLine, size: RawTerminal.size())
        defer { loop.finish() }
        loop.draw()
        for await event in events {
            loop.handle(event)
            if loop.ui.shouldQuit { break }
            loop.draw()
        }
    }
}

/// The driver's state between events: the view state, the screen shown and the toast timer.
@MainActor
private struct DriverLoop {
    let manager: AppManager
    let statusLine: @Sendable () -> String
    var ui: TUIViewState
    private var writer = ScreenWriter()
    private var ticks = 0
    private var shownToast: String?
    private var toastTimer: Task<Void, Never>?
    private var lastInputs: (rev: UInt64, ui: TUIViewState, context: RenderContext)?

    init(manager: AppManager, statusLine: @escaping @Sendable () -> String, size: TerminalSize) {
        self.manager = manager
        self.statusLine = statusLine
        self.ui = TUIViewState(size: size)
    }

    mutating func handle(_ event: TUIEvent) {
        switch event {
        case .key(.control("l")):
            writer.invalidate()
            lastInputs = nil
        case .key(.escape) where manager.secretStoreProblem != nil:
            manager.dismissSecretStoreProblem()
        case .key(let key):
            let state = manager.state
            let result = TUIKeyMap.handle(key, state: state, ui: ui.reconciled(with: state), restoring: manager.isRestoring)
            ui = result.ui
            for action in result.actions { manager.dispatch(action) }
        case .resized:
            resize(to: RawTerminal.size(), force: true)
        case .tick:
            ticks += 1
            resize(to: RawTerminal.size(), force: false)
        case .quit:
            ui.shouldQuit = true
        }
    }

    private mutating func resize(to size: TerminalSize, force: Bool) {
        guard force || size != ui.size else { return }
        ui.size = size
        writer.invalidate()
        lastInputs = nil
    }

    /// Draws the current state if anything shown could have changed since the last frame.
    mutating func draw() {
        let state = manager.state
        ui = ui.reconciled(with: state)
        watchToast(state.toast)
        let busy = TUIRenderer.busyText(state.busy, restoring: manager.isRestoring) != nil
        let context = RenderContext(
            statusLine: statusLine(), restoring: manager.isRestoring, spinnerPhase: busy ? ticks / 4 : 0,
            secretStoreProblem: manager.secretStoreProblem?.message)
        if let last = lastInputs, last.rev == state.rev, last.ui == ui, last.context == context { return }
        lastInputs = (state.rev, ui, context)
        let output = writer.output(for: TUIRenderer.render(state, ui, context))
        if !output.isEmpty { RawTerminal.write(output) }
    }

    /// Starts the manager's toast timer when a new toast shows; it dispatches `clearToast` unless the
    /// toast changed meanwhile.
    private mutating func watchToast(_ toast: String?) {
        guard toast != shownToast else { return }
        shownToast = toast
        toastTimer?.cancel()
        toastTimer = nil
        guard let toast else { return }
        let manager = self.manager
        toastTimer = Task { await manager.toastDisplayed(toast) }
    }

    func finish() {
        toastTimer?.cancel()
    }
}
