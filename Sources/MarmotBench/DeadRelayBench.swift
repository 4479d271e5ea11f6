import Foundation
import Logging
import NostrRelay
#if canImport(Glibc)
import Glibc
#endif

/// A command's wall time with one dead relay beside the live one (issue 50): `marmot chats`,
/// `invites` and `send`, run as a user runs them, with the live relay alone, and beside it a
/// refused port, a black hole (accepts TCP, never upgrades) and a mute relay (upgrades, never
/// answers). The goal: within 0.5 s of the live relay alone.
///
/// Wall time is the figure here (the cost is waiting, not work); the `marmot` binary is the one
/// built beside this one (`make bench` builds both).
enum DeadRelayBench {
    static let runs = 3

    static func run() async {
        Bench.section("A dead relay beside a live one (marmot commands, median of \(runs), wall time)")
        guard let marmot = executable("marmot") else {
            print("dead relays: skipped: no marmot binary beside marmot-bench (swift build --product marmot)")
            return
        }
        var logger = Logger(label: "bench")
        logger.logLevel = .warning
        let live = RelayServer(configuration: .benchmark, logger: logger)
        var mute = RelayConfiguration.benchmark
        mute.faults.answerDelay = .seconds(3600)
        let muteServer = RelayServer(configuration: mute, logger: logger)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-bench-dead-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        do {
            let liveURL = "ws://127.0.0.1:\(try await live.start())"
            let muteURL = "ws://127.0.0.1:\(try await muteServer.start())"
            let dead: [(String, String?)] = [
                ("live alone", nil), ("+ refused", try Socket.url(listening: false)),
                ("+ black hole", try Socket.url(listening: true)), ("+ mute", muteURL),
            ]
            let alice = root.appendingPathComponent("alice"), bob = root.appendingPathComponent("bob")
            for home in [alice, bob] {
                try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
                try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: home.path)
                _ = try command(marmot, ["account", "create", "--relay", liveURL], home: home)
            }
            let bobNpub = try command(marmot, ["account", "show", "--json", "--relay", liveURL], home: bob).npub
            _ = try command(marmot, ["send", bobNpub, "hello", "--relay", liveURL], home: alice)
            var baseline: [String: Double] = [:]
            for (label, url) in dead {
                let relays = ["--relay", liveURL] + (url.map { ["--relay", $0] } ?? [])
                var cells: [String] = []
                for (name, arguments, home) in [
                    ("chats", ["chats", "--json"], alice), ("invites", ["invites", "--json"], bob),
                    ("send", ["send", bobNpub, "again"], alice),
                ] {
                    var times: [Double] = []
                    for _ in 0..<runs { times.append(try command(marmot, arguments + relays, home: home).seconds) }
                    let median = times.sorted()[runs / 2]
                    if url == nil { baseline[name] = median }
                    let extra = url == nil ? "" : String(format: " (%+.2f)", median - (baseline[name] ?? 0))
                    cells.append(String(format: "%@ %.2f s%@", name, median, extra))
                }
                print("\(label.padding(toLength: 13, withPad: " ", startingAt: 0)) \(cells.joined(separator: "   "))")
            }
        } catch {
            print("dead relays: failed: \(error)")
        }
        await muteServer.stop()
        await live.stop()
    }

    /// A sibling executable of this one, if built.
    static func executable(_ name: String) -> URL? {
        let url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent(name)
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    struct Outcome {
        let seconds: Double
        let stdout: String
        /// The `npub` of a JSON answer (`account show --json`).
        var npub: String {
            let object = (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
            return object?["npub"] as? String ?? ""
        }
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `marmot arguments` in `home` and returns its wall time; a failing command is an error.
    static func command(_ marmot: URL, _ arguments: [String], home: URL) throws -> Outcome {
        let process = Process()
        process.executableURL = marmot
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["MARMOT_HOME"] = home.path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        guard process.terminationStatus == 0 else {
            throw Failed(description: "marmot \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return Outcome(seconds: seconds, stdout: String(decoding: data, as: UTF8.self))
    }

    /// Loopback ports held for the run: bound and never listened on (refused), or listened on and
    /// never accepted (a black hole).
    enum Socket {
        static func url(listening: Bool) throws -> String {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw Failed(description: "socket: \(errno)") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                    bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
                }
            }
            guard bound, !listening || listen(fd, 64) == 0 else {
                close(fd)
                throw Failed(description: "bind: \(errno)")
            }
            return "ws://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        }
    }
}
