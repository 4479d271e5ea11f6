import Foundation
import MarmotAppKit
import Observation

/// Wakes waiters whenever the manager's mirrored state changes (Observation), so commands wait on
/// core state instead of polling it.
@MainActor
final class StateWatch {
    enum Wake: Sendable { case changed, deadline }

    private let manager: AppManager
    private var waiters: [UUID: AsyncStream<Wake>.Continuation] = [:]

    init(manager: AppManager) {
        self.manager = manager
        arm()
    }

    /// Registers for the next change; the handler runs at `willSet`, so it hops back to the main
    /// actor to re-arm and then wake waiters, who read the state as set.
    private func arm() {
        withObservationTracking {
            _ = manager.state
            _ = manager.secretStoreProblem
        } onChange: { [weak self] in
            Task { @MainActor in
                self?.arm()
                self?.fire()
            }
        }
    }

    /// Waits for the next change of the mirrored state; false when none came within `timeout`.
    func nextChange(within timeout: Duration) async -> Bool {
        let wakes = register(timeout: timeout, buffering: 1)
        defer { wakes.end() }
        for await wake in wakes.stream { return wake == .changed }
        return false
    }

    /// A stream of wakes: `.changed` on each state change, one `.deadline` after `timeout`; `end()`
    /// unregisters it and stops the timer.
    private func register(timeout: Duration, buffering: Int) -> (stream: AsyncStream<Wake>, end: () -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: Wake.self, bufferingPolicy: .bufferingNewest(buffering))
        let id = UUID()
        waiters[id] = continuation
        let timer = Task {
            try? await Task.sleep(for: timeout)  // renderer-check: allow (deadline of a wait for core state)
            continuation.yield(.deadline)
        }
        return (stream, { [weak self] in
            timer.cancel()
            self?.waiters[id] = nil
            continuation.finish()
        })
    }

    private func fire() {
        for waiter in waiters.values { waiter.yield(.changed) }
    }

    /// Returns the first non-nil value of `check` on the current or a later state; throws `.timeout`
    /// after `timeout`, naming `what` was awaited.
    func until<Value>(
        _ what: String, timeout: Duration, _ check: () throws(CLIError) -> Value?
    ) async throws(CLIError) -> Value {
        if let value = try check() { return value }
        let wakes = register(timeout: timeout, buffering: 2)
        defer { wakes.end() }
        for await wake in wakes.stream {
            if let value = try check() { return value }
            if wake == .deadline { break }
        }
        throw CLIError(.timeout, "timed out after \(timeout.seconds) waiting for \(what)")
    }
}

extension Duration {
    /// "2.5 s" style text for messages.
    var seconds: String {
        let value = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}
