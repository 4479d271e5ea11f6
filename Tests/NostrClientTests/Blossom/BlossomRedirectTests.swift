import Foundation
import Hummingbird
import Nostr
import NostrClient
import TestSupport
import Testing

/// A media server that answers with a redirect (issue 46, surface review N1, security review D4):
/// the media URL policy checked only the first URL, and URLSession followed `302 Location:` to any
/// address, loopback "internal services" included. Redirects are refused and the target is never asked.
@Suite(.timeLimit(.minutes(2))) struct BlossomRedirectTests {
    @Test func aRedirectToAnInternalServiceIsNotFollowed() async throws {
        let internalHits = HitCounter()
        let blob = BlossomClientTests.bytes(3000)
        let hash = BlobHash.sha256(blob)
        try await BlossomClientTests.withHostileServer({ router in
            // The "internal service" the attacker aims at: it would serve the right bytes.
            router.get("internal/admin") { _, _ in
                internalHits.increment()
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: blob)))
            }
        }) { internalService in
            let target = internalService.appendingPathComponent("internal/admin").absoluteString + "?action=ssrf"
            try await BlossomClientTests.withHostileServer({ router in
                router.get(":blob") { _, _ in
                    Response(status: .found, headers: [.location: target])
                }
            }) { server in
                do {
                    _ = try await BlossomClient(timeout: 60).download(
                        server.appendingPathComponent(Hex.encode(hash)), expectedSHA256: hash, maxBytes: 1 << 20)
                    Issue.record("a redirect was followed to a download")
                } catch {
                    guard case .refused(let status, let reason)? = error as? BlossomError else {
                        Issue.record("expected a refusal, got \(error)")
                        return
                    }
                    #expect(status == 302)
                    #expect(reason?.contains("redirect") == true)
                }
            }
        }
        #expect(internalHits.value == 0, "the internal service was asked")
    }
}
