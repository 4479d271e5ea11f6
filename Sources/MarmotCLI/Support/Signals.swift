import Dispatch
import Foundation

/// Waits for SIGINT or SIGTERM, so foreground commands can shut down cleanly.
enum Signals {
    /// Returns when the process receives SIGINT or SIGTERM.
    static func waitForTermination() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = Once(continuation)
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { once.fire() }
                source.resume()
                Retained.sources.append(source)
            }
        }
    }

    /// Resumes a continuation at most once, whichever signal comes first.
    private final class Once: @unchecked Sendable {
        // Guarded by `lock`; signal handlers run on a global queue.
        private var continuation: CheckedContinuation<Void, Never>?
        private let lock = NSLock()
        init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }
        func fire() {
            lock.lock()
            let pending = continuation
            continuation = nil
            lock.unlock()
            pending?.resume()
        }
    }

    /// Keeps signal sources alive for the life of the process.
    private enum Retained {
        nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []
    }
}
