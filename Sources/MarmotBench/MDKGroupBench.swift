import Foundation

/// MDK 0.8.0 beside `GroupChatBench`: runs `scripts/mdk_group_bench.py` in the interop venv, which
/// does the same group operations with one MDK instance per member on its own encrypted SQLite
/// store, and prints its table under ours. Why: a figure of ours means little without the
/// reference implementation measured on the same machine in the same run.
enum MDKGroupBench {
    /// Seconds the MDK side may take in all (the script skips sizes that would not fit).
    static let budget = 150
    /// Published figures of other MLS implementations, for scale (their own machines).
    static let published = "published for reference (other machines): OpenMLS commit/process ~10 ms at 100 members; "
        + "mls-rs commit 13.9 ms, process 1.0 ms at 128 members"

    static func run(sizes: [Int]) {
        print("\n-- MDK 0.8.0 (mdk-python), same operations, one MDK instance per member on its own encrypted SQLite store (median) --")
        defer { print(published) }
        let script: String
        let python: String
        switch locate() {
        case .failure(let skip):
            print("MDK comparison skipped: \(skip.description)")
            return
        case .success(let found):
            (script, python) = found
        }
        // The script checks its budget between sizes; this bounds one size that overruns.
        let arguments = [script, "--sizes", sizes.map(String.init).joined(separator: ","), "--budget", String(budget)]
        if let failure = BenchInteropKit.runScript(python, arguments, limit: Double(budget * 2 + 60)) {
            print("MDK comparison stopped: \(failure)")
        }
    }

    /// The script (`scripts/` of the package, from the working directory or beside the built
    /// executable) and the interop venv's python, or why the comparison is skipped.
    static func locate(script name: String = "scripts/mdk_group_bench.py") -> Result<(script: String, python: String), BenchSkip> {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        // .build/<config>/marmot-bench -> package root three levels up.
        let executable = URL(fileURLWithPath: CommandLine.arguments[0], relativeTo: cwd).standardizedFileURL
        let packageRoot = executable.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [cwd.appendingPathComponent(name).path, packageRoot.appendingPathComponent(name).path]
        guard let script = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            return .failure(BenchSkip("\(name) not found (run from the package root)"))
        }
        return BenchInteropKit.locate("mdk_peer.py").map { (script: script, python: $0.python) }
    }
}
