import Foundation
import MarmotCore
import Testing

@Suite struct RelayDefaultsTests {
    @Test func environmentWinsAndIsSplitOnCommasAndSpaces() {
        let found = RelayDefaults.configured(
            environment: ["MARMOT_RELAYS": "ws://127.0.0.1:7447, wss://relay.example  wss://relay.example"],
            file: URL(fileURLWithPath: "/nonexistent"))
        #expect(found.relays.map(\.absoluteString) == ["ws://127.0.0.1:7447", "wss://relay.example"])
        #expect(found.rejected.isEmpty)
    }

    @Test func fileListsOneRelayPerLineWithComments() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("relays-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try "# my relays\nwss://a.example # home\n\nhttps://not-a-relay.example\nws://b.example:8080\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let found = RelayDefaults.configured(environment: [:], file: file)
        #expect(found.relays.map(\.absoluteString) == ["wss://a.example", "ws://b.example:8080"])
        #expect(found.rejected == ["https://not-a-relay.example"])
    }

    @Test func nothingConfiguredIsEmpty() {
        let found = RelayDefaults.configured(environment: ["MARMOT_RELAYS": "  "], file: nil)
        #expect(found.relays.isEmpty && found.rejected.isEmpty)
        #expect(!RelayDefaults.publicRelays.isEmpty)
    }
}
