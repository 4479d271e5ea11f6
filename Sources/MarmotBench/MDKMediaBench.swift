import Foundation

/// MDK 0.8.0 beside `MediaBench`: runs `scripts/mdk_media_bench.py` in the interop venv against the
/// same Blossom server, which prints its rows under ours in the same format. Why: a media figure of
/// ours means little without the reference implementation doing the same work in the same run.
enum MDKMediaBench {
    /// Seconds the MDK side may take in all.
    static let limit: Double = 300

    static func run(server: URL) {
        let script: String
        let python: String
        switch MDKGroupBench.locate(script: "scripts/mdk_media_bench.py") {
        case .failure(let skip):
            print("mdk   skipped: \(skip.description)")
            return
        case .success(let found):
            (script, python) = found
        }
        if let failure = BenchInteropKit.runScript(python, [script, "--server", server.absoluteString], limit: limit) {
            print("mdk   comparison stopped: \(failure)")
        }
    }
}
