import Foundation
import Nostr
import Testing
@testable import MarmotWire

/// Inputs the `group-event` fuzz target (scripts/fuzz.sh) stopped on, kept as tests.
@Suite struct GroupEventFuzzRegressionTests {
    /// The fuzzer's input had an `h` tag with upper-case hex digits: it is the same group (MDK decodes
    /// hex of either case), so the envelope is accepted with the canonical lower-case group id.
    @Test func upperCaseGroupTagNamesTheSameGroup() throws {
        let keys = Keys.generate()
        let group = try NostrGroupID(bytes: [UInt8](repeating: 0x5A, count: 32))
        let mixed = String(group.hex.prefix(18)) + "DEFA" + String(group.hex.dropFirst(22))
        let now: Int64 = 1_760_000_000
        let event = try UnsignedEvent(pubkey: keys.publicKey, createdAt: now, kind: .groupMessage,
                                      tags: [Tag(["h", mixed]), Tag(["encoding", "base64"])], content: "AAAA")
            .signed(with: keys)
        let validated = try GroupEvent.validate(event, now: now)
        #expect(validated.nostrGroupID.hex == mixed.lowercased())
        #expect(validated.nostrGroupID != group, "a different id, not silently the seed's group")
    }
}
