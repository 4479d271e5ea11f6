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
}
