import MarmotCore

/// A `CoreTimer` whose sleeps end only when the test says so (`fire()`), so toast expiry is tested
/// without waiting and never happens behind a test's back.
final class ManualTimer: Sendable {
    private let sleepers = Locked<[CheckedContinuation<Void, Never>]>([])
    private let requested = Locked<[Duration]>([])

    var timer: CoreTimer {
        CoreTimer { [self] duration in
            requested.update { $0.append(duration) }
            await withCheckedContinuation { continuation in sleepers.update { $0.append(continuation) } }
        }
    }

    /// The durations asked for so far.
    var durations: [Duration] { requested.current }

    /// How many sleeps are waiting.
    var waiting: Int { sleepers.current.count }

    /// Takes the oldest pending sleep out, for the test to end (`resume()`) when it wants.
    func takeOldest() -> CheckedContinuation<Void, Never>? {
        sleepers.update { $0.isEmpty ? nil : $0.removeFirst() }
    }

    /// Ends every pending sleep: the time has passed.
    func fire() {
        var woken: [CheckedContinuation<Void, Never>] = []
        sleepers.update { woken = $0; $0 = [] }
        woken.forEach { $0.resume() }
    }
}
