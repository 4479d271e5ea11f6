import Foundation
import MLS
import Nostr
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Commits that race right after a join: the joiners' post-join self-updates and the admin's rename
/// all start from the same epoch. Everyone must end on one branch, with the rename in it.
@Suite(.serialized, .timeLimit(.minutes(2))) struct GroupRaceTests {
    @Test func renameRacingTheJoinersSelfUpdatesIsNotLost() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let alice = try await TestAccount("alice", relayURLs: [url])
        let bob = try await TestAccount("bob", relayURLs: [url])
        let carol = try await TestAccount("carol", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage()
        _ = try await carol.client.publishKeyPackage()
        let created = try await alice.client.createGroup(name: "Climbing", members: [bob.publicKey, carol.publicKey])
        let id = created.chat.id
        let bobInvite = try await bob.waitForInvite()
        let carolInvite = try await carol.waitForInvite()
        _ = try await bob.client.acceptInvite(bobInvite.id)
        _ = try await carol.client.acceptInvite(carolInvite.id)
        // Alice renames at once, from the epoch the joiners' self-updates also start from.
        _ = try? await alice.client.updateGroupData(id, name: "Summit")

        try await waitUntil("everyone on one branch named Summit", timeout: 30) {
            let names = [try? await alice.client.chat(id)?.name, try? await bob.client.chat(id)?.name,
                         try? await carol.client.chat(id)?.name]
            let states = [await alice.epochState(id), await bob.epochState(id), await carol.epochState(id)]
            return names.allSatisfy { $0 == "Summit" }
                && Set(states.compactMap { $0?.authenticator }).count == 1 && states.allSatisfy { $0 != nil }
        }
        _ = try await bob.client.send(text: "on the same page", to: id)
        _ = try await alice.waitForMessage("on the same page")
        _ = try await carol.waitForMessage("on the same page")
        for account in [alice, bob, carol] { await account.shutdown() }
        await server.stop()
    }
}
