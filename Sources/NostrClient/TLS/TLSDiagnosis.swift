import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import Nostr

/// Why a server's certificate was refused, in words a person can act on (issue 44).
///
/// Why a second look: BoringSSL reports every chain failure as one `CERTIFICATE_VERIFY_FAILED`, and the
/// WebSocket library gives no verification callback. So after such a failure this opens one more TLS
/// handshake whose verification callback only reads the server's leaf certificate and then always
/// answers `.failed`: the handshake never completes, no byte of application data is sent, and the
/// refusal itself stays BoringSSL's (RFC 5280 path validation). The leaf's validity dates tell an
/// expired (or not yet valid) certificate from one issued by a CA this device does not trust.
enum TLSDiagnosis {
    /// What to say when the leaf could not be read either.
    static let untrusted =
        "certificate not trusted: it is not issued by a CA this device trusts (a self-hosted server's CA can be added with --ca-file or MARMOT_CA_FILE)"

    /// "TLS error: …" when `error` is a refused certificate, saying what is wrong with it: expired,
    /// not yet valid, for another host, from a CA this device does not trust; nil for other errors.
    static func reason(for error: any Error, url: String) async -> String? {
        let text = String(describing: error)
        let parsed = URL(string: url)
        let host = parsed?.host ?? url
        if text.contains("failedToValidateHostname") {
            return "TLS error: certificate not for this host (\(UntrustedText.line(host, limit: 80)) is not among its names)"
        }
        if text.contains("cannotUseIPAddressInSNI") {
            return "TLS error: wss:// to an IP address is not supported; use the server's host name"
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED"), let name = parsed?.host {
            #if canImport(Network)
            return "TLS error: " + untrusted
            #else
            return "TLS error: " + (await refusedCertificate(host: name, port: parsed?.port ?? 443))
            #endif
        }
        return nil
    }

    /// Why `host:port`'s certificate fails verification; `now` is the time to judge validity by.
    static func refusedCertificate(host: String, port: Int, now: Date = Date()) async -> String {
        guard let leaf = await leafCertificate(host: host, port: port) else { return untrusted }
        return reason(notBefore: leaf.notBefore, notAfter: leaf.notAfter, now: now)
    }

    /// The reason for a leaf valid from `notBefore` to `notAfter` (seconds since 1970), judged at `now`.
    static func reason(notBefore: Int64, notAfter: Int64, now: Date) -> String {
        let seconds = Int64(now.timeIntervalSince1970)
        let format = Date.ISO8601FormatStyle(dateSeparator: .dash, dateTimeSeparator: .space, timeZone: .gmt)
        func day(_ time: Int64) -> String { format.format(Date(timeIntervalSince1970: TimeInterval(time))) }
        if notAfter < seconds { return "certificate expired on \(day(notAfter))" }
        if notBefore > seconds { return "certificate not valid before \(day(notBefore)) (check this device's clock)" }
        return untrusted
    }

    /// The server's leaf certificate dates, read during a handshake that is always failed; nil when
    /// nothing came within a few seconds.
    private static func leafCertificate(host: String, port: Int) async -> (notBefore: Int64, notAfter: Int64)? {
        let seen = NIOLockedValueBox<(notBefore: Int64, notAfter: Int64)?>(nil)
        guard let context = try? NIOSSLContext(configuration: TLSConfiguration.makeClientConfiguration()),
            let channel = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(5))
                .channelInitializer({ channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = try NIOSSLClientHandler(
                            context: context, serverHostname: host,
                            customVerificationCallback: { certificates, promise in
                                if let leaf = certificates.first {
                                    seen.withLockedValue { $0 = (Int64(leaf.notValidBefore), Int64(leaf.notValidAfter)) }
                                }
                                promise.succeed(.failed)
                            })
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                })
                .connect(host: host, port: port).get()
        else { return nil }
        // The failed handshake closes the channel; a server that stalls is cut after 5 s.
        let cut = Task {
            try? await Task.sleep(for: .seconds(5))
            try? await channel.close()
        }
        try? await channel.closeFuture.get()
        cut.cancel()
        return seen.withLockedValue { $0 }
    }
}
