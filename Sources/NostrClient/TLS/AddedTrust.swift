import Foundation
import NIOConcurrencyHelpers
import NIOSSL

/// CA certificates the user added beside the system trust store, for a self-hosted relay or Blossom
/// server with a private CA (issue 44: `MARMOT_CA_FILE` / `--ca-file`).
///
/// Why process-wide: like `SSL_CERT_FILE`, it is how this installation trusts servers, not a property
/// of one connection; every `wss://` relay connection of the process uses it (Blossom's `https://` on
/// URLSession does not yet: URLSession on Linux cannot take an added CA). The
/// system store is always kept (NIOSSL's `.default` roots); the added CAs only widen it, and host
/// name and validity checks stay on (RFC 6125 names, RFC 5280 path validation). No certificate
/// check can be turned off.
public enum AddedTrust {
    /// Adds the PEM certificates of `path` (one or more `BEGIN CERTIFICATE` blocks).
    public static func add(caFile path: String) throws(AddedTrustError) {
        guard FileManager.default.isReadableFile(atPath: path) else { throw .unreadable(path) }
        let certificates: [NIOSSLCertificate]
        do { certificates = try NIOSSLCertificate.fromPEMFile(path) } catch { throw .notPEM(path) }
        guard !certificates.isEmpty else { throw .notPEM(path) }
        added.withLockedValue { $0.append(contentsOf: certificates) }
    }

    /// Adds the file named by `MARMOT_CA_FILE` when the variable is set and not empty.
    public static func addFromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(AddedTrustError)
    {
        guard let path = environment[environmentVariable], !path.isEmpty else { return }
        try add(caFile: path)
    }

    /// The environment variable naming a CA file to trust beside the system's.
    public static let environmentVariable = "MARMOT_CA_FILE"

    /// A client TLS configuration: the system roots plus the added CAs, full verification.
    static func clientConfiguration() -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        let certificates = added.withLockedValue { $0 }
        if !certificates.isEmpty { configuration.additionalTrustRoots = [.certificates(certificates)] }
        return configuration
    }

    /// The certificates added so far.
    private static let added = NIOLockedValueBox<[NIOSSLCertificate]>([])
}

/// Why a CA file could not be added.
public enum AddedTrustError: Error, Equatable, CustomStringConvertible {
    case unreadable(String)
    case notPEM(String)

    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read the CA file \(path)"
        case .notPEM(let path): "the CA file \(path) holds no PEM certificate (BEGIN CERTIFICATE)"
        }
    }
}
