import Foundation
import MLS
import Nostr
import Testing
@testable import MarmotWire

private func hex(_ text: String) -> [UInt8] { Hex.decode(text) ?? [] }

@Suite struct V2QUICVarintTests {
    @Test func encodesShortestFormAndRoundTrips() throws {
        let cases: [(UInt64, String)] = [(0, "00"), (63, "3f"), (64, "4040"), (16_383, "7fff"), (16_384, "80004000"),
                                         (1_073_741_823, "bfffffff"), (1_073_741_824, "c000000040000000")]
        for (value, expected) in cases {
            #expect(Hex.encode(QUICVarint.encode(value)) == expected)
            var cursor = hex(expected)[...]
            #expect(try QUICVarint.decode(&cursor) == value)
            #expect(cursor.isEmpty)
        }
    }

    @Test func rejectsNonMinimalAndTruncated() {
        for bad in ["4001", "80000001", "c000000000000001"] {
            var cursor = hex(bad)[...]
            #expect(throws: V2ComponentError.nonMinimalVarint) { try QUICVarint.decode(&cursor) }
        }
        var short = hex("40")[...]
        #expect(throws: V2ComponentError.truncated("QUIC varint")) { try QUICVarint.decode(&short) }
    }
}

@Suite struct V2ComponentsListTests {
    @Test func roundTripsSortedIDs() throws {
        let list = ComponentsList([0x8004, 0x8001, 0x8003])
        #expect(Hex.encode(list.bytes) == "06800180038004")
        #expect(try ComponentsList(bytes: list.bytes) == list)
    }

    // Values from MDK v0.9.14 crates/traits/src/app_components/tests.rs
    // (component_list_rejects_duplicate_or_trailing_bytes, component_list_rejects_non_canonical_id_order).
    @Test func rejectsDuplicateUnsortedAndTrailing() {
        #expect(throws: V2ComponentError.duplicateComponent(0x8001)) { try ComponentsList(bytes: [4, 0x80, 0x01, 0x80, 0x01]) }
        #expect(throws: V2ComponentError.unsortedComponents) { try ComponentsList(bytes: [4, 0x80, 0x02, 0x80, 0x01]) }
        #expect(throws: V2ComponentError.trailingBytes("component list")) { try ComponentsList(bytes: [2, 0x80, 0x01, 0x00]) }
        #expect(throws: V2ComponentError.oddComponentListLength) { try ComponentsList(bytes: [1, 0x80]) }
    }
}

@Suite struct V2GroupProfileTests {
    // MDK v0.9.14 crates/traits/src/app_components/tests.rs group_profile_golden_distinguishes_absent_from_present_empty.
    @Test func emptyProfileIsTwoZeroBytes() throws {
        let empty = try GroupProfile(name: "", description: "")
        #expect(empty.bytes == [0x00, 0x00])
        #expect(try GroupProfile(bytes: [0x00, 0x00]) == empty)
    }

    // MDK tests.rs group_profile_codec_preserves_utf8_bytes_without_unicode_normalization.
    @Test func keepsUTF8BytesWithoutNormalisation() throws {
        let composed = try GroupProfile(name: "\u{e9}")
        let decomposed = try GroupProfile(name: "e\u{301}")
        #expect(composed.bytes == [0x02, 0xc3, 0xa9, 0x00])
        #expect(decomposed.bytes == [0x03, 0x65, 0xcc, 0x81, 0x00])
        #expect(try GroupProfile(bytes: decomposed.bytes).name.unicodeScalars.count == 2)
    }

    // MDK tests.rs group_profile_codec_rejects_oversized_length_before_reading_body (varint 257, no body).
    @Test func rejectsOversizedLengthBeforeBody() {
        #expect(throws: V2ComponentError.tooLong("group profile name", max: 256)) { try GroupProfile(bytes: QUICVarint.encode(257)) }
        #expect(throws: V2ComponentError.tooLong("group profile description", max: 4096)) {
            try GroupProfile(name: "", description: String(repeating: "a", count: 4097))
        }
        #expect(throws: V2ComponentError.notUTF8("group profile name")) { try GroupProfile(bytes: [0x01, 0xff, 0x00]) }
        #expect(throws: V2ComponentError.trailingBytes("group profile")) { try GroupProfile(bytes: [0x00, 0x00, 0x00]) }
    }
}

@Suite struct V2LifecycleAndRetentionTests {
    // MDK v0.9.14 crates/traits/src/app_components/lifecycle.rs lifecycle_codec_is_exactly_one_byte.
    @Test func lifecycleIsExactlyOneByte() throws {
        #expect(GroupLifecycle.active.bytes == [0])
        #expect(GroupLifecycle.disbanded.bytes == [1])
        #expect(try GroupLifecycle(bytes: [0]) == .active)
        #expect(try GroupLifecycle(bytes: [1]) == .disbanded)
        #expect(throws: V2ComponentError.truncated("group lifecycle")) { try GroupLifecycle(bytes: []) }
        #expect(throws: V2ComponentError.unknownLifecycleState(2)) { try GroupLifecycle(bytes: [2]) }
        #expect(throws: V2ComponentError.trailingBytes("group lifecycle")) { try GroupLifecycle(bytes: [0, 0]) }
    }

    // MDK v0.9.14 crates/cgka-engine/src/app_components.rs message_retention_state_is_big_endian_seconds.
    @Test func retentionIsBigEndianSeconds() throws {
        #expect(try MessageRetention(bytes: [0, 0, 0, 0, 0, 0, 0, 42]).seconds == 42)
        #expect(try MessageRetention(bytes: [UInt8](repeating: 0, count: 8)).seconds == 0)
        #expect(MessageRetention(seconds: 42).bytes == [0, 0, 0, 0, 0, 0, 0, 42])
        #expect(throws: V2ComponentError.wrongLength("message retention", expected: 8, actual: 7)) {
            try MessageRetention(bytes: [UInt8](repeating: 0, count: 7))
        }
    }
}

@Suite struct V2AdminPolicyTests {
    @Test func sortsAndRoundTrips() throws {
        let a = Keys.generate().publicKey, b = Keys.generate().publicKey
        let policy = try AdminPolicy(admins: [a, b, a])
        #expect(policy.admins == [a, b].sorted())
        #expect(Array(policy.bytes.prefix(2)) == [0x40, 0x40] && policy.bytes.count == 2 + 64)  // varint(64) is two bytes
        #expect(try AdminPolicy(bytes: policy.bytes) == policy)
    }

    @Test func rejectsEmptyUnsortedAndRagged() throws {
        let keys = [Keys.generate().publicKey, Keys.generate().publicKey].sorted()
        #expect(throws: V2ComponentError.emptyAdminPolicy) { try AdminPolicy(bytes: [0]) }
        #expect(throws: V2ComponentError.emptyAdminPolicy) { try AdminPolicy(admins: []) }
        #expect(throws: V2ComponentError.unsortedAdmins) { try AdminPolicy(bytes: [0x40, 0x40] + keys[1].bytes + keys[0].bytes) }
        #expect(throws: V2ComponentError.unsortedAdmins) { try AdminPolicy(bytes: [0x40, 0x40] + keys[0].bytes + keys[0].bytes) }
        #expect(throws: V2ComponentError.adminPolicyLength) { try AdminPolicy(bytes: [31] + [UInt8](repeating: 1, count: 31)) }
        #expect(throws: V2ComponentError.nonMinimalVarint) { try AdminPolicy(bytes: [0x40, 0x20] + keys[0].bytes) }
    }
}

/// The 0x8004 byte fixtures of MDK v0.9.14
/// crates/cgka-conformance-simulator/vectors/byte-fixtures/nostr-routing-v1-*.v1.json.
@Suite struct V2NostrRoutingFixtureTests {
    static let groupID = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

    // nostr-routing-v1-valid-state.v1.json: bytes.hex and bytes.component_data_hex.
    @Test func validStateFixture() throws {
        let stateHex = Self.groupID + "2c157773733a2f2f72656c61792d612e6578616d706c65157773733a2f2f72656c61792d622e6578616d706c65"
        let componentDataHex = "8004404d" + stateHex
        let routing = try NostrRouting(bytes: hex(stateHex))
        #expect(Hex.encode(routing.nostrGroupID) == Self.groupID)
        #expect(routing.relays == ["wss://relay-a.example", "wss://relay-b.example"])
        #expect(Hex.encode(routing.bytes) == stateHex)
        #expect(routing.hTag == Self.groupID)
        let rebuilt = try NostrRouting(nostrGroupID: hex(Self.groupID), relays: ["wss://relay-b.example", "wss://relay-a.example"])
        #expect(rebuilt == routing)
        // The ComponentData entry: u16 id then opaque<V> (MLS varint 0x404d = 77).
        let entry = ComponentData(componentID: MarmotComponentID.nostrRouting, data: Data(routing.bytes))
        #expect(Hex.encode(entry.tlsSerialized) == componentDataHex)
        #expect(try ComponentData(tlsSerialized: hex(componentDataHex)) == entry)
    }

    // nostr-routing-v1-valid-update.v1.json: a full-replacement update decoded by the same codec.
    @Test func validUpdateFixture() throws {
        let updateHex = Self.groupID + "16157773733a2f2f72656c61792d632e6578616d706c65"
        let routing = try NostrRouting(bytes: hex(updateHex))
        #expect(routing.relays == ["wss://relay-c.example"])
        #expect(Hex.encode(routing.bytes) == updateHex)
        let update = AppDataUpdate.update(MarmotComponentID.nostrRouting, Data(routing.bytes))
        #expect(Hex.encode(update.tlsSerialized) == "8004" + "01" + "37" + updateHex)
    }

    // nostr-routing-v1-invalid-duplicate-relay.v1.json: expected error duplicate_relay.
    @Test func duplicateRelayFixtureIsRejected() {
        let badHex = Self.groupID + "2c157773733a2f2f72656c61792d612e6578616d706c65157773733a2f2f72656c61792d612e6578616d706c65"
        #expect(throws: V2ComponentError.duplicateRelay) { try NostrRouting(bytes: hex(badHex)) }
    }

    @Test func rejectsUnsortedEmptyTooManyAndBadURLs() throws {
        let id = hex(Self.groupID)
        func encode(_ relays: [String]) -> [UInt8] {
            var entries: [UInt8] = []
            for r in relays { QUICVarint.encodeBytes(Array(r.utf8), into: &entries) }
            var out = id
            QUICVarint.encodeBytes(entries, into: &out)
            return out
        }
        #expect(throws: V2ComponentError.unsortedRelays) { try NostrRouting(bytes: encode(["wss://b.example", "wss://a.example"])) }
        #expect(throws: V2ComponentError.noRelays) { try NostrRouting(bytes: encode([])) }
        #expect(throws: V2ComponentError.tooManyRelays(17)) {
            try NostrRouting(bytes: encode((0..<17).map { String(format: "wss://r%02d.example", $0) }))
        }
        #expect(throws: V2ComponentError.invalidRelayURL("credentials")) { try NostrRouting(bytes: encode(["wss://u:p@a.example"])) }
        #expect(throws: V2ComponentError.invalidRelayURL("fragment")) { try NostrRouting(bytes: encode(["wss://a.example/#x"])) }
        #expect(throws: (any Error).self) { try NostrRouting(bytes: encode(["https://a.example"])) }
        #expect(throws: V2ComponentError.trailingBytes("nostr routing")) { try NostrRouting(bytes: encode(["wss://a.example"]) + [0]) }
    }
}
