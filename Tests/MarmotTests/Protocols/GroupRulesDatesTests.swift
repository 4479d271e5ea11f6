import Foundation
import Nostr
import Testing
@testable import Marmot

/// The dates each version writes on and accepts of a kind-445 envelope.
struct GroupRulesDatesTests {
    /// v2 binds an application message's outer date to its inner one (MDK 0.9.14 peeler.rs 154-163),
    /// so a message sent again later is ordered the same by everyone; v1 dates the envelope when sent.
    @Test func outerDateOfAnApplicationMessage() {
        #expect(V2GroupRules().outerCreatedAt(inner: 1_000, now: 5_000) == 1_000)
        #expect(V1GroupRules().outerCreatedAt(inner: 1_000, now: 5_000) == 5_000)
    }

    /// v2 has no created_at window (MDK 0.9.14 peeler.rs 186-234); v1 keeps MDK 0.8.0's 45 days
    /// back and 5 minutes ahead.
    @Test func onlyV1RefusesAnEnvelopeByItsDate() throws {
        let now = UnsignedEvent.now()
        let h = NostrGroupID.random()
        let key = try GroupEventKey(bytes: Data(repeating: 7, count: GroupEventKey.byteCount))
        for createdAt in [now + 3600, now - 50 * 86400] {
            let v2 = try GroupEvent.build(mlsMessage: Data(repeating: 1, count: 40), tags: [Tag(["h", h.hex])], key: key, createdAt: createdAt)
            #expect(try V2GroupRules().validateEnvelope(v2, now: now, window: .mdkDefault).nostrGroupID == h)
            let v1 = try GroupEvent.build(mlsMessage: Data(repeating: 1, count: 40), nostrGroupID: h, key: key, createdAt: createdAt)
            #expect(throws: DropReason.self) { try V1GroupRules().validateEnvelope(v1, now: now, window: .mdkDefault) }
        }
    }
}
