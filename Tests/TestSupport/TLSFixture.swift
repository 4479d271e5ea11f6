import Foundation

/// A certificate authority made for one test with `openssl`, and the certificates it signs (issue 44).
///
/// Tests trust the CA through `MARMOT_CA_FILE` / `AddedTrust`, never through the machine's store:
/// `good` names localhost and 127.0.0.1, `expired` is past its end, `wrongHost` names another host,
/// and `untrusted` is signed by a second CA nobody adds.
public struct TestCA: Sendable {
    /// One certificate and its key, as PEM files.
    public struct Pair: Sendable {
        public let certificate: String
        public let key: String
    }

    public let folder: URL
    /// The CA's own certificate (the file to trust).
    public let caFile: String
    public let good: Pair
    public let expired: Pair
    public let wrongHost: Pair
    public let untrusted: Pair

    /// Makes the CAs and the four server certificates in a fresh temporary folder.
    public static func make() throws -> TestCA {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-ca-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        try makeCA(path("ca"), name: "Marmot Test CA")
        try makeCA(path("other-ca"), name: "Someone Else's CA")
        let good = try sign(path("good"), ca: path("ca"), names: "DNS:localhost,IP:127.0.0.1", days: "2")
        let expired = try sign(path("expired"), ca: path("ca"), names: "DNS:localhost,IP:127.0.0.1", days: "-1")
        let wrongHost = try sign(path("wrong-host"), ca: path("ca"), names: "DNS:relay.example.org", days: "2")
        let untrusted = try sign(path("untrusted"), ca: path("other-ca"), names: "DNS:localhost,IP:127.0.0.1", days: "2")
        return TestCA(
            folder: folder, caFile: path("ca.pem"), good: good, expired: expired, wrongHost: wrongHost, untrusted: untrusted)
    }

    public func remove() { try? FileManager.default.removeItem(at: folder) }

    private static func makeCA(_ base: String, name: String) throws {
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", base + ".key",
            "-out", base + ".pem", "-days", "2", "-subj", "/CN=\(name)",
        ])
    }

    private static func sign(_ base: String, ca: String, names: String, days: String) throws -> Pair {
        try openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", base + ".key", "-out",
            base + ".csr", "-subj", "/CN=marmot test server",
        ])
        try Data("subjectAltName=\(names)\n".utf8).write(to: URL(fileURLWithPath: base + ".ext"))
        try openssl([
            "x509", "-req", "-in", base + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key", "-CAcreateserial", "-out",
            base + ".pem", "-days", days, "-extfile", base + ".ext",
        ])
        return Pair(certificate: base + ".pem", key: base + ".key")
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError.missing("openssl \(arguments.prefix(1).joined()) failed (is openssl installed?)")
        }
    }
}

/// A TLS terminator (Python's `ssl`, `Tests/NostrClientTests/Fixtures/tls_terminator.py`) in front of a
/// plain TCP port on loopback, as nginx or stunnel would sit in front of a relay.
public struct TLSTerminator: Sendable {
    public let process: ChildProcess
    public let port: Int

    public static var script: String {
        SharedFixtures.packageRoot.appendingPathComponent("Tests/NostrClientTests/Fixtures/tls_terminator.py").path
    }

    /// Starts it with `pair` in front of `backend`.
    public static func start(_ pair: TestCA.Pair, backend: Int) async throws -> TLSTerminator {
        let process = try ChildProcess(
            "tls_terminator.py", executable: "/usr/bin/env",
            arguments: ["python3", script, "--cert", pair.certificate, "--key", pair.key, "--backend", String(backend)])
        guard let line = await process.nextLine(timeout: 20), line.hasPrefix("ready "), let port = Int(line.dropFirst(6))
        else {
            await process.stop()
            throw FixtureError.missing("the TLS terminator did not start (python3 with ssl)")
        }
        return TLSTerminator(process: process, port: port)
    }

    public func stop() async { await process.stop() }
}
