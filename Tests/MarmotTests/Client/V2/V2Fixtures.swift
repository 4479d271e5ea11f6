import Foundation
import MLS
import Nostr
import TestSupport
import Testing
@testable import Marmot

/// v2 chats between our clients, set up the way most v2 tests begin.
enum V2Fixtures {
    /// A v2 1:1 chat made by Alice (clock `aliceOffset` seconds off) with Bob, who joined and rotated
    /// his leaf (epoch 2).
    static func oneToOne(
        _ url: String, aliceOffset: Int64 = 0
    ) async throws -> (alice: TestAccount, bob: TestAccount, id: GroupID) {
        let alice = try await TestAccount("alice", relayURLs: [url], clock: { UnsignedEvent.now() + aliceOffset })
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage(version: .v2)
        let created = try await alice.client.createChat(with: bob.publicKey)
        #expect(created.chat.version == .v2)
        _ = try await bob.waitForWelcome()
        _ = try await alice.waitForCommit(epoch: 2, by: bob.publicKey)
        return (alice, bob, created.chat.id)
    }

    /// A v2 group "Trio" made by Alice (its only admin) with Bob and Carol, who joined one after the
    /// other (epoch 3 on every side).
    static func trio(_ url: String) async throws -> (alice: TestAccount, bob: TestAccount, carol: TestAccount, id: GroupID) {
        let alice = try await TestAccount("alice", relayURLs: [url])
        let bob = try await TestAccount("bob", relayURLs: [url])
        let carol = try await TestAccount("carol", relayURLs: [url])
        for member in [bob, carol] { _ = try await member.client.publishKeyPackage(version: .v2) }
        let created = try await alice.client.createGroup(name: "Trio", members: [bob.publicKey, carol.publicKey])
        #expect(created.chat.version == .v2)
        _ = try await bob.waitForWelcome()
        _ = try await alice.waitForCommit(epoch: 2)
        _ = try await carol.waitForWelcome()
        _ = try await alice.waitForCommit(epoch: 3)
        _ = try await bob.waitForCommit(epoch: 3)
        return (alice, bob, carol, created.chat.id)
    }
}
