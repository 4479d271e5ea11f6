import Foundation

/// A tiny benchmark harness: runs a body repeatedly and prints its cost.
///
/// Speed targets live here rather than in timed tests (DEVELOPERS.md): figures are printed, not asserted.
enum Bench {
    /// Monotonic nanoseconds.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// CPU nanoseconds this process used so far, all threads (`CLOCK_PROCESS_CPUTIME_ID`): the work
    /// a phase cost, which waiting for a busy machine's cores does not inflate as it does wall time
    /// (issue 27; valgrind 3.19 cannot run the threaded sections, so callgrind has no counts for them).
    static func cpuNow() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Runs `body` `iterations` times after a short warm-up and prints mean time per call.
    @discardableResult
    static func measure(_ name: String, iterations: Int, _ body: () throws -> Void) rethrows -> Double {
        for _ in 0..<max(1, iterations / 10) { try body() }
        let start = now()
        for _ in 0..<iterations { try body() }
        let perCall = Double(now() - start) / Double(iterations)
        print(line(name, perCallNanos: perCall, iterations: iterations))
        return perCall
    }

    /// Async variant of `measure`.
    @discardableResult
    static func measureAsync(_ name: String, iterations: Int, _ body: () async throws -> Void) async rethrows -> Double {
        let start = now()
        for _ in 0..<iterations { try await body() }
        let perCall = Double(now() - start) / Double(iterations)
        print(line(name, perCallNanos: perCall, iterations: iterations))
        return perCall
    }

    /// Median milliseconds of `runs` timed calls of `body` (no warm-up): robust to the odd slow run
    /// on a shared machine, and the statistic the MDK comparison prints.
    static func medianMillis(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
        var samples: [Double] = []
        for _ in 0..<max(1, runs) {
            let start = now()
            try body()
            samples.append(Double(now() - start) / 1_000_000)
        }
        samples.sort()
        let middle = samples.count / 2
        return samples.count % 2 == 1 ? samples[middle] : (samples[middle - 1] + samples[middle]) / 2
    }

    /// Formats one result line with a unit that fits the magnitude.
    static func line(_ name: String, perCallNanos: Double, iterations: Int) -> String {
        let value: String
        switch perCallNanos {
        case ..<1_000: value = String(format: "%.0f ns", perCallNanos)
        case ..<1_000_000: value = String(format: "%.2f µs", perCallNanos / 1_000)
        default: value = String(format: "%.2f ms", perCallNanos / 1_000_000)
        }
        let name = name.padding(toLength: max(name.count, 48), withPad: " ", startingAt: 0)
        return "\(name) \(value)/op  (\(iterations) runs)"
    }

    /// Prints a section heading.
    static func section(_ title: String) { print("\n== \(title) ==") }
}
