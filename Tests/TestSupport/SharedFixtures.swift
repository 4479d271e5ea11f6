import Foundation

/// Locates `../shared` (vectors, interop kit) for tests.
///
/// Tests read the official vectors in place (never copied into the project). The folder comes from
/// `MARMOT_SHARED`, defaulting to `../shared` beside the package root. When it is missing, tests skip
/// with a visible message, except under `CI=true`, where a missing folder fails the run.
public enum SharedFixtures {
    /// The package root, derived from this file's location (Tests/TestSupport/SharedFixtures.swift).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The shared folder, resolved against the package root when relative.
    public static let sharedRoot: URL = {
        let raw = ProcessInfo.processInfo.environment["MARMOT_SHARED"] ?? "../shared"
        if raw.hasPrefix("/") { return URL(fileURLWithPath: raw).standardizedFileURL }
        return packageRoot.appendingPathComponent(raw).standardizedFileURL
    }()

    /// True when running under CI (`CI=true`), where missing fixtures are failures, not skips.
    public static let isCI: Bool = ProcessInfo.processInfo.environment["CI"] == "true"

    /// True when the shared folder exists. In CI a missing folder is reported by `requireShared()`.
    public static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: sharedRoot.appendingPathComponent("vectors").path)
    }

    /// Whether fixture tests should run: always in CI (so they fail loudly), else only when present.
    public static var shouldRun: Bool {
        if isAvailable { return true }
        if isCI { return true }
        FileHandle.standardError.write(Data(
            "SKIP: shared fixtures not found at \(sharedRoot.path) (set MARMOT_SHARED); vector tests skipped\n".utf8))
        return false
    }

    /// URL of a file under `vectors/`.
    public static func vector(_ relativePath: String) -> URL {
        sharedRoot.appendingPathComponent("vectors").appendingPathComponent(relativePath)
    }

    /// Raw bytes of a vector file; throws a descriptive error when absent.
    public static func vectorData(_ relativePath: String) throws -> Data {
        let url = vector(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw FixtureError.missing(url.path)
        }
        return try Data(contentsOf: url)
    }

    /// Decodes a JSON vector file into `T`; returns nil (after a visible skip message) when the shared
    /// folder is absent outside CI, so parameterized tests get zero cases instead of crashing.
    public static func loadJSON<T: Decodable>(_ type: T.Type, _ relativePath: String) throws -> T? {
        guard shouldRun else { return nil }
        return try JSONDecoder().decode(T.self, from: vectorData(relativePath))
    }

    /// Prints a per-file report line such as `vectors crypto-basics.json: ran 1 (suite 1), skipped 6 (other suites)`.
    public static func report(_ file: String, ran: Int, skipped: Int, reason: String = "other cipher suites") {
        print("vectors \(file): ran \(ran), skipped \(skipped) (\(reason))")
    }

    /// URL of a file under `interop/`.
    public static func interop(_ relativePath: String) -> URL {
        sharedRoot.appendingPathComponent("interop").appendingPathComponent(relativePath)
    }
}

/// Errors raised when fixtures cannot be read.
public enum FixtureError: Error, CustomStringConvertible {
    case missing(String)
    case malformed(String)

    public var description: String {
        switch self {
        case .missing(let path): "fixture missing: \(path) (set MARMOT_SHARED to the shared folder)"
        case .malformed(let what): "fixture malformed: \(what)"
        }
    }
}

/// Hex helpers for vectors.
public extension Data {
    /// Decodes lower- or upper-case hex; nil on odd length or a non-hex character.
    init?(testHex hex: String) {
        var bytes = [UInt8]()
        bytes.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for c in hex.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let h = high { bytes.append(h << 4 | v); high = nil } else { high = v }
        }
        guard high == nil else { return nil }
        self.init(bytes)
    }

    /// Lower-case hex.
    var testHex: String { map { String(format: "%02x", $0) }.joined() }
}

/// A vector entry tagged with the MLS cipher suite it was made for.
public protocol CipherSuiteVector: Decodable {
    var cipher_suite: UInt16 { get }
}

extension SharedFixtures {
    /// Loads an MLS vector file and keeps the entries of one cipher suite (suite 1 by default),
    /// printing the ran/skipped line. Unreadable files yield no entries, which each file's count test
    /// turns into a failure in CI (outside CI the shared folder may be absent, with a visible skip).
    public static func cases<T: CipherSuiteVector>(
        _ type: T.Type, _ file: String, label: String? = nil, suite: UInt16 = 1
    ) -> [T] {
        let all: [T]
        do {
            all = try loadJSON([T].self, file) ?? []
        } catch {
            FileHandle.standardError.write(Data("vectors \(file): unreadable: \(error)\n".utf8))
            all = []
        }
        let mine = all.filter { $0.cipher_suite == suite }
        report(label ?? file, ran: mine.count, skipped: all.count - mine.count, reason: "other cipher suites")
        return mine
    }
}
