import Foundation
import MLS
import Nostr
import Testing
@testable import MarmotWire

@Suite struct NostrGroupDataTests {
    let vector = MarmotVectors.bytes(MarmotVectors.groupDataHex)

    @Test func decodesMDKVectorAndReencodesIdentically() throws {
        #expect(vector.count == 121)
        let data = try NostrGroupData(extensionData: vector)
        #expect(data.version == 2)
        #expect(data.nostrGroupID.hex == MarmotVectors.nostrGroupIDHex)
        #expect(data.name == "Test Group")
        #expect(data.groupDescription == "A description")
        #expect(data.admins.map(\.hex) == [MarmotVectors.adminHex])
        #expect(data.relays.map(\.string) == ["wss://relay.example.com"])
        #expect(data.imageHash == nil && data.imageKey == nil && data.imageNonce == nil && data.imageUploadKey == nil)
        #expect(data.tlsSerialized == vector)
        MarmotVectors.report("§12.3 NostrGroupData", ran: 1)
    }

    @Test func encodesAsGroupContextExtension() throws {
        let data = try NostrGroupData(extensionData: vector)
        let ext = Extension(data)
        #expect(ext.tlsSerialized.testHex == "f2ee4079" + MarmotVectors.groupDataHex)
        let back = try Extension(tlsSerialized: ext.tlsSerialized)
        #expect(try NostrGroupData(groupContextExtensions: [back]) == data)
        #expect(throws: NostrGroupDataError.missing) { try NostrGroupData(groupContextExtensions: []) }
    }

    @Test func constructedValueMatchesVector() throws {
        let data = NostrGroupData(
            nostrGroupID: try NostrGroupID(hex: MarmotVectors.nostrGroupIDHex), name: "Test Group",
            description: "A description", admins: [try PublicKey(hex: MarmotVectors.adminHex)],
            relays: [try RelayURL("wss://relay.example.com")])
        #expect(data.tlsSerialized == vector)
    }

    @Test func encoderSortsAndDeduplicates() throws {
        let a = Keys.generate().publicKey, b = Keys.generate().publicKey
        let r1 = try RelayURL("wss://b.example"), r2 = try RelayURL("wss://a.example")
        var data = NostrGroupData(
            nostrGroupID: .random(), name: "", description: "", admins: [b, a, b], relays: [r1, r2, r1])
        #expect(data.admins == [a, b].sorted())
        #expect(data.relays == [r2, r1])
        data.admins = [b, a, a]
        let decoded = try NostrGroupData(extensionData: data.tlsSerialized)
        #expect(decoded.admins == [a, b].sorted())
        #expect(decoded.relays == [r2, r1])
    }

    @Test func roundTripsImageFields() throws {
        let data = NostrGroupData(
            nostrGroupID: .random(), name: "ñame ✓", description: "d", admins: [Keys.generate().publicKey],
            relays: [try RelayURL("ws://localhost:7777/")], imageHash: Data(repeating: 1, count: 32),
            imageKey: Data(repeating: 2, count: 32), imageNonce: Data(repeating: 3, count: 12),
            imageUploadKey: Data(repeating: 4, count: 32))
        #expect(try NostrGroupData(extensionData: data.tlsSerialized) == data)
        #expect(!data.description.contains("0202"))
    }

    // MARK: Rejections

    @Test func rejectsTrailingBytes() {
        #expect(throws: TLSDecodingError.trailingBytes(1)) { try NostrGroupData(extensionData: vector + [0]) }
    }

    @Test func rejectsTruncation() {
        for cut in [1, 2, 30, 60, 120] {
            #expect(throws: (any Error).self) { try NostrGroupData(extensionData: vector.prefix(cut)) }
        }
    }

    @Test func rejectsVersionZeroAndReadsFutureVersions() throws {
        var v0 = vector
        v0[1] = 0
        #expect(throws: NostrGroupDataError.unsupportedVersion(0)) { try NostrGroupData(extensionData: v0) }
        var v3 = vector
        v3[1] = 3
        let data = try NostrGroupData(extensionData: v3)
        #expect(data.version == 3 && data.name == "Test Group")
        #expect(data.tlsSerialized == v3)
    }

    @Test func rejectsWrongImageLengths() {
        for (index, field) in ["image_hash", "image_key", "image_nonce", "image_upload_key"].enumerated() {
            var bad = Data(vector.dropLast(4))
            for i in 0..<4 {
                if i == index { bad.append(contentsOf: [0x05, 1, 2, 3, 4, 5]) } else { bad.append(0) }
            }
            let expected = [32, 32, 12, 32][index]
            #expect(throws: NostrGroupDataError.invalidLength(field: field, expected: expected, actual: 5)) {
                try NostrGroupData(extensionData: bad)
            }
        }
    }

    @Test func rejectsInvalidUTF8Name() {
        var bad = vector
        bad[35] = 0xff  // first byte of "Test Group"
        #expect(throws: NostrGroupDataError.invalidUTF8(field: "name")) { try NostrGroupData(extensionData: bad) }
    }

    @Test func rejectsPartialAdminKey() throws {
        var w = TLSWriter()
        w.write(UInt16(2))
        w.writeFixed(Data(repeating: 7, count: 32))
        w.writeOpaque(Data())
        w.writeOpaque(Data())
        w.writeOpaque(Data(repeating: 1, count: 31))
        w.writeVector { _ in }
        for _ in 0..<4 { w.writeOpaque(Data()) }
        #expect(throws: NostrGroupDataError.invalidAdminList(byteCount: 31)) { try NostrGroupData(extensionData: w.data) }
    }

    @Test func rejectsNonRelayURL() {
        var w = TLSWriter()
        w.write(UInt16(2))
        w.writeFixed(Data(repeating: 7, count: 32))
        w.writeOpaque(Data())
        w.writeOpaque(Data())
        w.writeOpaque(Data())
        w.writeVector { $0.writeOpaque(Data("https://relay.example.com".utf8)) }
        for _ in 0..<4 { w.writeOpaque(Data()) }
        #expect(throws: NostrGroupDataError.invalidRelay(.unsupportedScheme("https://relay.example.com"))) {
            try NostrGroupData(extensionData: w.data)
        }
    }
}

@Suite struct MarmotGroupExtensionsTests {
    @Test func requiredCapabilitiesAllModern() {
        let caps = MarmotGroupExtensions.leafCapabilities()
        let required = MarmotGroupExtensions.requiredCapabilities(inviteeCapabilities: [caps, caps])
        #expect(Extension(required).tlsSerialized.testHex == "00030702f2ee02000a00")
    }

    @Test func requiredCapabilitiesWithoutSelfRemove() {
        var legacy = MarmotGroupExtensions.leafCapabilities(grease: false)
        legacy.proposals = []
        let mixed = MarmotGroupExtensions.requiredCapabilities(
            inviteeCapabilities: [MarmotGroupExtensions.leafCapabilities(), legacy])
        #expect(mixed.proposalTypes.isEmpty)
        #expect(MarmotGroupExtensions.requiredCapabilities(inviteeCapabilities: []).proposalTypes.isEmpty)
        #expect(Extension(mixed).tlsSerialized.testHex == "00030502f2ee0000")
    }

    @Test func leafCapabilitiesCarryOneGreasePerList() {
        let caps = MarmotGroupExtensions.leafCapabilities()
        #expect(caps.versions == [.mls10])
        #expect(caps.cipherSuites.count == 2 && MarmotGroupExtensions.isGrease(caps.cipherSuites[1].rawValue))
        #expect(Array(caps.extensions.prefix(2)) == [.lastResort, .marmotGroupData])
        #expect(MarmotGroupExtensions.isGrease(caps.proposals[1].rawValue))
        #expect(MarmotGroupExtensions.greaseValues.first == 0x0A0A && MarmotGroupExtensions.greaseValues.last == 0xEAEA)
    }
}
