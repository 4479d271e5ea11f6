import Foundation
import Nostr
import NostrClient
import NostrRelay
import TestSupport
import Testing

/// `wss://` through a real TLS terminator (Python's `ssl`) in front of the embedded relay, with a CA
/// the test makes and adds through `AddedTrust` (issue 44); bad certificates are refused, each with a
/// reason that says what is wrong.
@Suite(.serialized, .timeLimit(.minutes(3))) struct TLSRelayTests {
    @Test func anEventGoesThroughTLSWithAnAddedCA() async throws {
        let ca = try TestCA.make()
        defer { ca.remove() }
        try AddedTrust.add(caFile: ca.caFile)
        let relay = ClientTestSupport.relay()
        let port = try await relay.start()
        let tls = try await TLSTerminator.start(ca.good, backend: port)
        do {
            let client = try await ClientTestSupport.connected("wss://localhost:\(tls.port)")
            let event = try TestEvents.make(content: "over TLS")
            #expect(await client.publish(event) == .accepted(message: ""))
            let (inbox, pump) = ClientTestSupport.inbox(await client.subscribe([Filter(ids: [event.id])]))
            let got = await inbox.first {
                if case .event(let received) = $0 { return received.id == event.id }
                return false
            }
            #expect(got != nil, "the event did not come back over wss://")
            pump.cancel()
            await client.disconnect()
        }
        // NIOSSL checks an IP address only without SNI, which the WebSocket library always sends.
        let byAddress = ClientTestSupport.client("wss://127.0.0.1:\(tls.port)")
        await byAddress.connect()
        let reason = try await withTimeout(30, "a refused address") { () async -> String? in
            for await report in await byAddress.reportUpdates() {
                if let failure = report.lastFailure { return failure.description }
            }
            return nil
        }
        #expect(reason?.contains("use the server's host name") == true, "\(reason ?? "none")")
        await byAddress.disconnect()
        await tls.stop()
        await relay.stop()
    }

    @Test(arguments: [Bad.expired, .wrongHost, .untrusted])
    func aBadCertificateIsRefusedWithItsReason(_ bad: Bad) async throws {
        let ca = try TestCA.make()
        defer { ca.remove() }
        try AddedTrust.add(caFile: ca.caFile)
        let relay = ClientTestSupport.relay()
        let port = try await relay.start()
        let pair: TestCA.Pair =
            switch bad {
            case .expired: ca.expired
            case .wrongHost: ca.wrongHost
            case .untrusted: ca.untrusted
            }
        let tls = try await TLSTerminator.start(pair, backend: port)
        let client = ClientTestSupport.client("wss://localhost:\(tls.port)")
        await client.connect()
        let reason = try await withTimeout(30, "a refused connection") { () async -> String? in
            for await report in await client.reportUpdates() {
                if let failure = report.lastFailure { return failure.description }
            }
            return nil
        }
        let text = try #require(reason)
        #expect(text.hasPrefix("TLS error: "), "\(text)")
        #expect(text.contains(bad.words), "\(bad): \(text)")
        #expect(await relay.connectionCounts()?.connections == 0, "a WebSocket was opened through a bad certificate")
        await client.disconnect()
        await tls.stop()
        await relay.stop()
    }

    enum Bad: String, CustomStringConvertible, Sendable {
        case expired, wrongHost, untrusted

        var description: String { rawValue }

        /// What the reason must say.
        var words: String {
            switch self {
            case .expired: "expired"
            case .wrongHost: "not for this host (localhost is not among its names)"
            case .untrusted: "not issued by a CA this device trusts"
            }
        }
    }

    @Test func aCAFileThatIsNotPEMIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-ca-\(UUID().uuidString).pem").path
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: AddedTrustError.notPEM(path)) { try AddedTrust.add(caFile: path) }
        #expect(throws: AddedTrustError.unreadable(path + ".missing")) { try AddedTrust.add(caFile: path + ".missing") }
    }
}
