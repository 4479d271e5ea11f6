import Foundation
import TestSupport

/// The nostr-sdk peer script of these tests (publishes and receives Marmot-kind events).
extension InteropKit {
    static var peerScript: String {
        SharedFixtures.packageRoot.appendingPathComponent("Tests/NostrClientTests/Fixtures/nostr_sdk_peer.py").path
    }

    /// Starts the nostr-sdk peer script with `arguments`.
    static func peer(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess("nostr_sdk_peer.py", executable: python, arguments: [peerScript] + arguments)
    }
}
