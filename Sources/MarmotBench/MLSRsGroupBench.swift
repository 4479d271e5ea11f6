import Foundation

/// mls-rs beside `GroupChatBench`: runs `scripts/mlsrs_group_bench.py` in the interop venv (PyPI
/// `agentvault-mls-rs-uniffi`, suite 1, state in memory), which does the same group operations at the
/// same sizes, prints its table under ours and the ratio ours / mls-rs per cell. Why: issue 27's goals
/// are stated against mls-rs measured on the same machine in the same run.
enum MLSRsGroupBench {
    /// Seconds the mls-rs side may take in all.
    static let budget = 120
    /// The columns of the script's JSON line, in the order of our table.
    static let columns = ["create", "join", "add", "remove", "update_create", "update_process", "message"]

    /// `ours`: our table's rows (members, then one "x.xx ms" cell per column).
    static func run(sizes: [Int], ours: [[String]]) {
        print("\n-- mls-rs (agentvault-mls-rs-uniffi, suite 1, in memory), same operations (median) --")
        let found: (script: String, python: String)
        switch locate() {
        case .failure(let skip):
            print("mls-rs comparison skipped: \(skip.description)")
            return
        case .success(let located):
            found = located
        }
        let output: String
        do {
            output = try runScript(found, sizes: sizes)
        } catch {
            print("mls-rs comparison failed: \(error)")
            return
        }
        var figures: [String: [String: Double]] = [:]
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("mls-rs-json ") {
                let json = Data(line.dropFirst("mls-rs-json ".count).utf8)
                figures = (try? JSONSerialization.jsonObject(with: json) as? [String: [String: Double]]) ?? [:]
            } else if !line.isEmpty {
                print(line)
            }
        }
        guard !figures.isEmpty else {
            print("mls-rs comparison: no figures")
            return
        }
        print("ratio ours / mls-rs (< 1: ours is faster; ours on disk, mls-rs in memory)")
        print("members | create | join | add 1 | remove 1 | self-update create | self-update process | message enc+dec")
        for row in ours {
            guard let size = row.first, let theirs = figures[size] else { continue }
            let cells = zip(row.dropFirst(), columns).map { cell, column -> String in
                guard let mine = Double(cell.replacingOccurrences(of: " ms", with: "")), let other = theirs[column],
                      other > 0
                else { return "—" }
                return String(format: "%.2f×", mine / other)
            }
            print(([size] + cells).joined(separator: " | "))
        }
    }

    /// Runs the script and returns its standard output, bounded by twice the budget.
    static func runScript(_ found: (script: String, python: String), sizes: [Int]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: found.python)
        process.arguments = [found.script, "--sizes", sizes.map(String.init).joined(separator: ","), "--budget", String(budget)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let collected = OutputBox()
        let reader = Thread {
            collected.set(pipe.fileHandleForReading.readDataToEndOfFile())
        }
        reader.start()
        let deadline = Date().addingTimeInterval(Double(budget * 2 + 60))
        while process.isRunning, Date() < deadline { usleep(100_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw BenchSkip("still running after \(budget * 2 + 60) s")
        }
        guard process.terminationStatus == 0 else {
            throw BenchSkip("mlsrs_group_bench.py exited with status \(process.terminationStatus)")
        }
        return String(decoding: collected.wait(), as: UTF8.self)
    }

    /// The script (package `scripts/`) and the interop venv's python, or why the comparison is skipped.
    static func locate() -> Result<(script: String, python: String), BenchSkip> {
        MDKGroupBench.locate().flatMap { mdk in
            let script = URL(fileURLWithPath: mdk.script).deletingLastPathComponent()
                .appendingPathComponent("mlsrs_group_bench.py").path
            guard FileManager.default.fileExists(atPath: script) else {
                return .failure(BenchSkip("\(script) not found"))
            }
            return .success((script: script, python: mdk.python))
        }
    }
}

/// The script's output, handed from the reader thread to the waiting one.
private final class OutputBox: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    func set(_ value: Data) {
        data = value
        done.signal()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
