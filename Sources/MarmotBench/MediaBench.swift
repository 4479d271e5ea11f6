import Foundation
import Logging
import MLS
import Marmot
import Nostr
import NostrClient
import NostrRelay

/// Encrypted media (MIP-04) through the embedded Blossom server: encrypt + upload and download +
/// decrypt of 100 KB, 1 MB and 10 MB, ours beside MDK 0.8.0 (mdk-python) doing the same work
/// against the same server in the same run (issue 28).
///
/// Equal work on both sides: the media secret is exported from the group's current epoch on each
/// run, the file is sealed with mip04-v2, the blob is PUT to `/upload` with a kind-24242 token, and
/// fetched back with GET, hash-checked and opened. Each run's file differs (its first bytes), so no
/// upload is skipped as already stored. Peak memory is the growth of the process's resident high
/// water mark during one operation (`/proc/self/clear_refs` resets it first).
enum MediaBench {
    static let sizes: [(label: String, bytes: Int, runs: Int)] = [
        ("100 KB", 100_000, 9), ("1 MB", 1_000_000, 5), ("10 MB", 10_000_000, 3),
    ]

    struct Row {
        let label: String
        let bytes: Int
        let upload: (millis: Double, peakMB: Double)
        let download: (millis: Double, peakMB: Double)
    }

    static func run() async {
        Bench.section("Media (MIP-04 mip04-v2) through the embedded Blossom server, loopback (median)")
        var logger = Logger(label: "bench")
        logger.logLevel = .warning
        var configuration = RelayConfiguration.benchmark
        var blossom = BlossomConfiguration()
        blossom.quotaBytes = nil
        configuration.blossom = blossom
        let server = RelayServer(configuration: configuration, logger: logger)
        defer { Task { await server.stop() } }
        let blossomURL: URL
        do {
            _ = try await server.start()
            guard let text = await server.blossomURL, let url = URL(string: text) else {
                print("media bench: the embedded relay has no Blossom server")
                return
            }
            blossomURL = url
        } catch {
            print("media bench: cannot start the embedded relay: \(error)")
            return
        }
        print("server: \(blossomURL.absoluteString)")
        print(header)
        do {
            for size in sizes {
                print(format(try await measure(size, server: blossomURL), side: "ours"))
            }
        } catch {
            print("ours: failed: \(error)")
        }
        MDKMediaBench.run(server: blossomURL)
        await server.stop()
    }

    static let header = "side  size     encrypt+upload         peak     download+decrypt       peak"

    static func format(_ row: Row, side: String) -> String {
        func rate(_ millis: Double) -> String {
            String(format: "%7.1f ms %7.1f MB/s", millis, Double(row.bytes) / 1e6 / max(millis / 1000, 1e-9))
        }
        return "\(side.padding(toLength: 5, withPad: " ", startingAt: 0)) \(row.label.padding(toLength: 7, withPad: " ", startingAt: 0)) "
            + "\(rate(row.upload.millis))  \(String(format: "%6.1f MB", row.upload.peakMB))   "
            + "\(rate(row.download.millis))  \(String(format: "%6.1f MB", row.download.peakMB))"
    }

    /// One size: `runs` uploads of distinct files, then `runs` downloads of them.
    static func measure(_ size: (label: String, bytes: Int, runs: Int), server: URL) async throws -> Row {
        let founded = try BenchGroup(size: 2, name: "media bench").found()
        let group = founded.newGroup
        let scheme = V1MediaScheme()
        let keys = Keys.generate()
        let client = BlossomClient()
        var base = Data(count: size.bytes)
        base.withUnsafeMutableBytes { buffer in
            for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: (index &* 2_654_435_761) >> 13) }
        }
        var uploads: [(millis: Double, peak: Double)] = []
        var references: [MediaReference] = []
        for run in 0..<size.runs {
            var file = base
            file[0] = UInt8(run)
            file[1] = UInt8(truncatingIfNeeded: Int(Bench.now()))
            let (millis, peak, reference) = try await Memory.peak { () async throws -> MediaReference in
                let secret = try scheme.secret(of: group)
                let sealed = try scheme.encrypt(file, mimeType: "application/octet-stream", filename: "bench.bin",
                                                dimensions: nil, secret: secret)
                let descriptor = try await client.upload(sealed.ciphertext, type: "application/octet-stream", to: server,
                                                         keys: keys, now: UnsignedEvent.now())
                return sealed.reference(url: descriptor.url)
            }
            uploads.append((millis, peak))
            references.append(reference)
        }
        var downloads: [(millis: Double, peak: Double)] = []
        for reference in references {
            let (millis, peak, plain) = try await Memory.peak { () async throws -> Data in
                let blob = try await client.download(reference.url, expectedSHA256: reference.blobSHA256,
                                                     maxBytes: size.bytes + 1024)
                return try scheme.decrypt(blob, reference: reference, secret: try scheme.secret(of: group))
            }
            guard plain.count == size.bytes else { throw BenchSkip("downloaded \(plain.count) bytes, not \(size.bytes)") }
            downloads.append((millis, peak))
        }
        return Row(label: size.label, bytes: size.bytes,
                   upload: (median(uploads.map(\.millis)), uploads.map(\.peak).max() ?? 0),
                   download: (median(downloads.map(\.millis)), downloads.map(\.peak).max() ?? 0))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// Resident-memory high-water marks of this process (Linux `/proc`).
enum Memory {
    /// Runs `body` and returns its milliseconds, how far the resident high-water mark rose above the
    /// resident size at its start (MB), and its result.
    static func peak<T>(_ body: () async throws -> T) async rethrows -> (Double, Double, T) {
        reset()
        let before = kilobytes("VmRSS")
        let start = Bench.now()
        let value = try await body()
        let millis = Double(Bench.now() - start) / 1_000_000
        let high = kilobytes("VmHWM")
        return (millis, Double(max(0, high - before)) / 1024, value)
    }

    /// Sets the high-water mark to the current resident size (`clear_refs` value 5).
    static func reset() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }

    /// A `kB` field of `/proc/self/status`, or 0 where there is none.
    static func kilobytes(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
