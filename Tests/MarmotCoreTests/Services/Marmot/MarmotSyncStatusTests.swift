import Foundation
import MarmotCore
import Nostr
import Testing

/// The real messaging service's caught-up signal (issue 16): once the state says `isCaughtUp`, what
/// the relays held for this account when the session started is in the state.
@Suite(.serialized, .timeLimit(.minutes(3))) struct MarmotSyncStatusTests {
    @Test("a restarted app lists an invitation that arrived while it was off by the time it says it caught up")
    func caughtUpIncludesStoredInvitations() async throws {
        let world = LiveWorld()
        let (_, relay) = try await world.startRelay()
        do {
            let alice = world.app("alice", relays: [relay])
            // The relay's EOSE ends Bob's catch-up, not the 2 s fallback timer a loaded machine can outrun.
            var patient = LiveApp.testOptions
            patient.catchUpTimeout = .seconds(60)
            let bob = world.app("bob", relays: [relay], options: patient)
            _ = try await alice.createAccount()
            let bobKeys = try await bob.createAccount()
            try await bob.waitFor("caught up") { $0.network.isCaughtUp && $0.network.keyPackagePublished == true }
            try await LiveWorld.waitForKeyPackage(of: bobKeys.publicKey, on: relay)
            bob.dispatch(.logout)
            try await bob.waitFor("logged out") { !$0.auth.isLoggedIn && $0.network.sync == .idle }

            alice.dispatch(.createChat(peerNpub: bobKeys.publicKey.npub))
            try await alice.waitFor("chat created") { $0.currentChat != nil }

            // Bob's app starts again: the invitation reaches it only through the start-up catch-up.
            let device = try await bob.restarted(keys: bobKeys)
            try await device.waitFor("caught up") { $0.network.isCaughtUp }
            #expect(device.state().invites.count == 1, "\(device.state().invites)")
            #expect(device.state().network.sync == .live)
        } catch {
            await world.close()
            throw error
        }
        await world.close()
    }
}
