import Foundation
import MLS
import Nostr
import NostrRelay
import TestSupport
import Testing
@testable import Marmot

/// Only this account's own installations are ever offered as "your device" (issue 29).
@Suite(.serialized, .timeLimit(.minutes(2))) struct DeviceTrustTests {
    /// Mallory publishes a key package whose leaf credential claims Alice's npub, signed with
    /// Mallory's own Nostr key, in both the addressable and the legacy form: Alice is never offered
    /// it. Alice's real second installation (the same nsec in
    /// another folder) is offered, so the list is not empty for want of looking. Run with v1 only
    /// (where the forged v1 key package would parse, so only authorship keeps it out) and with v2.
    @Test(arguments: [[MarmotVersion.v1], MarmotVersion.allCases])
    func aKeyPackageClaimingOurNpubFromAnotherAuthorIsNeverOffered(_ versions: [MarmotVersion]) async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var options = ClientHarness.options
        options.keyPackageVersions = Set(versions)
        let alice = try await TestAccount("alice", relayURLs: [url], options: options)
        _ = try await alice.client.ensureKeyPackages()
        let mallory = Keys.generate()
        let relays = [try RelayURL(url)]
        let own = try KeyPackageEvent.build(
            keyPackage: try HostileParty.keyPackage(claiming: mallory.publicKey).0, relays: relays, keys: mallory)
        let forged = try HostileParty.keyPackage(claiming: alice.publicKey).0
        for template in [own.addressable, own.legacy] {
            let event = try UnsignedEvent(
                pubkey: mallory.publicKey, createdAt: UnsignedEvent.now(), kind: template.kind, tags: template.tags,
                content: Base64.encode(forged.tlsSerialized)
            ).signed(with: mallory)
            #expect(try await RelayReads.publish(event, to: url).isAccepted)
        }
        #expect(try await alice.client.devices().filter { !$0.isThisDevice }.isEmpty)

        let phone = try await TestAccount("alice-phone", keys: alice.keys, relayURLs: [url], options: options)
        _ = try await phone.client.ensureKeyPackages()
        let offered = try await waitUntilValue("the phone offered") {
            let waiting = (try? await alice.client.devices().filter { !$0.isLinked }) ?? []
            return waiting.isEmpty ? nil : waiting
        }
        #expect(offered.count == 1)
        #expect(offered.first?.version == (versions.contains(.v2) ? .v2 : .v1))
        await phone.shutdown()
        await alice.shutdown()
        await server.stop()
    }

    /// "Add my other devices" joins a Welcome sealed by our own account without asking, into a
    /// group where our account is admin and holds the adding device's leaf. Mallory builds exactly
    /// that shape (her leaf claims Bob's npub, Bob the only admin, Bob's real key package added)
    /// and gift-wraps it to Bob under her own seal: the seal proves Mallory, not Bob, so Bob drops
    /// it, joins nothing and lists no invitation.
    @Test func aWelcomeShapedLikeOurOtherDeviceButSealedByAStrangerIsDropped() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        _ = try await bob.client.publishKeyPackage()
        var mallory = HostileParty()
        let bobsPackage = try await RelayReads.keyPackage(of: bob.publicKey, on: url)
        let welcome = try mallory.createGroup(
            leafIdentity: bob.publicKey, admins: [bob.publicKey], invitees: [bobsPackage.keyPackage], relays: [try RelayURL(url)],
            name: "Trip")
        let wrap = try mallory.wrap(welcome, to: bobsPackage, relays: [try RelayURL(url)])
        #expect(try await RelayReads.publish(wrap, to: url).isAccepted)

        let (dropped, reason) = try await bob.waitForDrop()
        #expect(dropped == wrap.id)
        guard case .untrustedWelcome = reason else { throw HarnessError.unexpected("dropped for \(reason)") }
        try await Task.sleep(for: .milliseconds(500))
        #expect(await bob.client.invites().isEmpty)
        #expect(try await bob.client.chats().isEmpty)
        #expect(try bob.store.groups().isEmpty)
        await bob.shutdown()
        await server.stop()
    }
}
