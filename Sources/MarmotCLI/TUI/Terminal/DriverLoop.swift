import MarmotAppKit
import MarmotCore

/// The driver's state between events: the view state and the screen shown. It holds no timer: the
/// core clears its toasts itself (issue 16).
///
/// It reads the terminal size and writes output only through the closures it is given, so tests run
/// it against a real manager without a terminal.
@MainActor
struct DriverLoop {
    let manager: AppManager
    let statusLine: @Sendable () -> String
    /// Saves attachments (^O); nil where nothing may be written.
    let saver: AttachmentSaver?
    private let measure: () -> TerminalSize
    private let write: (String) -> Void
    private(set) var ui: TUIViewState
    private var writer = ScreenWriter()
    private var ticks = 0
    private var lastInputs: (rev: UInt64, ui: TUIViewState, context: RenderContext)?

    init(
        manager: AppManager, statusLine: @escaping @Sendable () -> String, measure: @escaping () -> TerminalSize,
        write: @escaping (String) -> Void, saver: AttachmentSaver? = nil
    ) {
        self.saver = saver
        self.manager = manager
        self.statusLine = statusLine
        self.measure = measure
        self.write = write
        self.ui = TUIViewState(size: measure())
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
            if let request = ui.saveRequest {
                ui.saveRequest = nil
                saver?.save(request)
            }
        case .resized:
            resize(to: measure(), force: true)
        case .tick:
            ticks += 1
            resize(to: measure(), force: false)
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
        let busy = TUIRenderer.busyText(state.busy, restoring: manager.isRestoring) != nil
        let context = RenderContext(
            statusLine: [state.auth.isLoggedIn ? state.network.statusText : "", statusLine(), saver?.notice ?? ""]
                .filter { !$0.isEmpty }.joined(separator: " · "),
            restoring: manager.isRestoring, spinnerPhase: busy ? ticks / 4 : 0,
            secretStoreProblem: manager.secretStoreProblem?.message)
        if let last = lastInputs, last.rev == state.rev, last.ui == ui, last.context == context { return }
        lastInputs = (state.rev, ui, context)
        let output = writer.output(for: TUIRenderer.render(state, ui, context))
        if !output.isEmpty { write(output) }
    }

    /// Nothing to stop: kept so the terminal driver's shutdown reads the same.
    func finish() {}
}
