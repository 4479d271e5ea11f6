import Testing
@testable import MarmotWire

@Suite struct RelayURLTests {
    @Test(arguments: [
        ("wss://relay.example.com", "wss://relay.example.com"),
        ("wss://relay2.example.com/", "wss://relay2.example.com/"),
        ("WSS://Relay.Example.COM/Path", "wss://relay.example.com/Path"),
        ("ws://localhost:7777", "ws://localhost:7777"),
        ("ws://127.0.0.1:8080/", "ws://127.0.0.1:8080/"),
    ])
    func normalises(_ input: String, _ expected: String) throws {
        #expect(try RelayURL(input).string == expected)
    }

    @Test(arguments: ["", "relay.example.com", "https://relay.example.com", "wss://", "wss:// relay", "wss://a b", "wss:relay"])
    func rejects(_ input: String) {
        #expect(throws: RelayURLError.self) { try RelayURL(input) }
    }
}
