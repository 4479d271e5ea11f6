import Foundation

/// Finds a script of the interop kit (`$MARMOT_SHARED/interop`, default `../shared`) and its venv
/// (`$MDK_VENV`, default `.venv-interop`), relative to the working directory `make bench` runs in.
enum BenchInteropKit {
    /// The script's path and the venv, or why the comparison is skipped.
    static func locate(_ script: String) -> Result<(script: String, venv: String, python: String), BenchSkip> {
        let environment = ProcessInfo.processInfo.environment
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let shared = environment["MARMOT_SHARED"].map { URL(fileURLWithPath: $0, relativeTo: cwd) }
            ?? cwd.appendingPathComponent("../shared")
        let path = shared.appendingPathComponent("interop/\(script)").standardizedFileURL.path
        let venv = environment["MDK_VENV"].map { URL(fileURLWithPath: $0, relativeTo: cwd).path }
            ?? cwd.appendingPathComponent(".venv-interop").path
        guard FileManager.default.fileExists(atPath: path) else { return .failure(BenchSkip("\(path) not found")) }
        let python = venv + "/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return .failure(BenchSkip("no interop venv at \(venv) (make test creates it)"))
        }
        return .success((path, venv, python))
    }

    /// Runs a comparison script with the venv's python, its output going straight to ours, for at
    /// most `limit` seconds; nil when it ran to the end, else what went wrong.
    static func runScript(_ python: String, _ arguments: [String], limit: Double) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        fflush(nil)
        do {
            try process.run()
        } catch {
            return "cannot start \(python): \(error)"
        }
        let deadline = Date().addingTimeInterval(limit)
        while process.isRunning, Date() < deadline { usleep(100_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            return "still running after \(Int(limit)) s"
        }
        let name = arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? python
        return process.terminationStatus == 0 ? nil : "\(name) exited with status \(process.terminationStatus)"
    }
}
