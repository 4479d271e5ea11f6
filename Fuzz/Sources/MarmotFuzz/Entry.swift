import CFuzzerDriver
import Foundation

/// The libFuzzer entry points. One binary holds every target; `MARMOT_FUZZ_TARGET` picks one.
///
/// `MARMOT_FUZZ_LIST=1` prints the target names and exits; `MARMOT_FUZZ_SEEDS=<dir>` writes the
/// selected target's seed corpus (our own valid encodings) into `<dir>` and exits. A target throws
/// away inputs its decoder rejects and traps (`FuzzFailure.fail`) on a wrong answer, such as a value
/// that does not survive decode → encode → decode.
nonisolated(unsafe) var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    let environment = ProcessInfo.processInfo.environment
    if environment["MARMOT_FUZZ_LIST"] != nil {
        for target in FuzzTargets.all { print("\(target.name)\t\(target.summary)") }
        exit(0)
    }
    guard let name = environment["MARMOT_FUZZ_TARGET"], let target = FuzzTargets.all.first(where: { $0.name == name }) else {
        let names = FuzzTargets.all.map(\.name).joined(separator: " ")
        FileHandle.standardError.write(Data("set MARMOT_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    if let directory = environment["MARMOT_FUZZ_SEEDS"] {
        let seeds = target.seeds()
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (index, seed) in seeds.enumerated() {
            _ = FileManager.default.createFile(atPath: "\(directory)/seed-\(index)", contents: seed)
        }
        print("\(target.name): \(seeds.count) seeds in \(directory)")
        exit(0)
    }
    target.prepare()
    selected = target
    return 0
}

/// The process entry: SwiftPM links an executable's `main` to `MarmotFuzz_main`, so libFuzzer's own
/// `main` is not used; this hands the command line to libFuzzer's driver instead.
@_cdecl("MarmotFuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { start, size in fuzzerTestOneInput(start, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    selected?.run(data)
    return 0
}

/// One fuzz target: a decoder of untrusted bytes, its seeds, and the check run on each input.
struct FuzzTarget: Sendable {
    let name: String
    let summary: String
    /// Valid encodings made by our own encoders.
    let seeds: @Sendable () -> [Data]
    /// Work done once before fuzzing (keys, a live group).
    var prepare: @Sendable () -> Void = {}
    let run: @Sendable (Data) -> Void
}

/// Traps with a message libFuzzer prints next to the saved input.
enum FuzzFailure {
    static func fail(_ target: String, _ message: String) -> Never {
        FileHandle.standardError.write(Data("\n[\(target)] WRONG ANSWER: \(message)\n".utf8))
        fatalError("\(target): \(message)")
    }

    /// Checks that `value` survives encode → decode unchanged.
    static func expectEqual<T: Equatable>(_ target: String, _ first: T, _ second: T, _ what: String) {
        if first != second { fail(target, "\(what): \(first) != \(second)") }
    }
}

enum FuzzTargets {
    static let all: [FuzzTarget] = MLSTargets.all + NostrTargets.all + MarmotTargets.all + V2Targets.all + MediaTargets.all
}
