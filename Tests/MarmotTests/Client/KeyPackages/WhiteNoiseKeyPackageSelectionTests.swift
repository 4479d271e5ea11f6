import Foundation
import MLS
import Nostr
import NostrClient
import TestSupport
import Testing
@testable import Marmot

/// How MDK 0.9.14 (White Noise) picks the key package it invites an account with, ported from
/// `crates/marmot-app/src/key_package_records.rs`: `latest_key_package_from_records` (94-110) sorts
/// the author's records by created_at then id (`sort_directory_records`, `lib.rs` 5983-5990), parses
/// every kind-30443 one with `key_package_from_record` (248-334) and fails on the first error (`?`),
/// keeping the last one parsed. The directory asks relays for kind 30443 only.
enum MDKKeyPackageSelection {
    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    /// The KeyPackageRef MDK would invite `author` with, or the error that stops it.
    static func select(author: PublicKey, from events: [Event], now: Int64) throws -> KeyPackageRef {
        let sorted = events.sorted { ($0.createdAt, $0.id.hex) < ($1.createdAt, $1.id.hex) }
        var latest: KeyPackageRef?
        for event in sorted where event.kind == .addressableKeyPackage && event.pubkey == author {
            latest = try parse(event, now: now)
        }
        guard let latest else { throw Refused(description: "MissingKeyPackage") }
        return latest
    }

    /// `key_package_from_record`: the tags it reads (`mls_protocol_version` 1.0, non-empty `d` and
    /// `i`, no repeat of a checked tag), non-empty base64 content decoded as the current profile's
    /// MLSMessage, the ciphersuite and the three id lists equal to what the KeyPackage advertises,
    /// the credential identity equal to the author and `i` equal to the ref.
    static func parse(_ event: Event, now: Int64) throws -> KeyPackageRef {
        func values(_ name: String) throws -> [String] {
            let tags = event.tags.filter { $0.name == name }
            guard tags.count <= 1 else { throw Refused(description: "duplicate \(name) tag") }
            guard let tag = tags.first else { throw Refused(description: "missing \(name) tag") }
            return Array(tag.fields.dropFirst())
        }
        guard try values("mls_protocol_version").first == "1.0" else { throw Refused(description: "invalid mls_protocol_version tag") }
        guard let d = event.tags.first(where: { $0.name == "d" })?.value, !d.isEmpty else { throw Refused(description: "missing d tag") }
        guard let i = event.tags.first(where: { $0.name == "i" })?.value, !i.isEmpty else { throw Refused(description: "missing i tag") }
        guard let raw = Base64.decode(event.content), !raw.isEmpty else { throw Refused(description: "invalid base64 content") }
        guard let message = try? MLSMessage(tlsSerialized: raw), case .keyPackage(let keyPackage) = message.body else {
            throw Refused(description: "not a current-profile KeyPackage")
        }
        let advertised = V2KeyPackageEvent.advertised(keyPackage)
        guard try values("mls_ciphersuite") == [String(format: "0x%04x", keyPackage.cipherSuite.rawValue)] else {
            throw Refused(description: "invalid mls_ciphersuite tag")
        }
        for (name, expected) in [("mls_extensions", advertised.extensions), ("mls_proposals", advertised.proposals),
                                 ("app_components", advertised.components)] {
            let actual = try values(name)
            guard Set(actual).count == actual.count, Set(actual) == Set(expected) else {
                throw Refused(description: "\(name) tag does not exactly match decoded KeyPackage metadata")
            }
        }
        guard case .basic(let identity) = keyPackage.leafNode.credential, identity == Data(event.pubkey.bytes) else {
            throw Refused(description: "transport author does not match KeyPackage credential identity")
        }
        let ref = CipherSuiteProvider.mls128X25519.keyPackageRef(encodedKeyPackage: keyPackage.tlsSerialized)
        guard Hex.encode(ref.bytes) == i else { throw Refused(description: "i tag does not match decoded KeyPackageRef") }
        return ref
    }
}

/// White Noise can invite our users: of the key package events we publish, MDK 0.9.14's selection
/// finds our v2 one, and MDK 0.8.0's finds our v1 one.
@Suite(.serialized, .timeLimit(.minutes(2))) struct WhiteNoiseKeyPackageSelectionTests {
    /// The events an account has on `url` of `kinds`.
    private static func events(of author: PublicKey, kinds: [Kind], on url: String) async throws -> [Event] {
        try await RelayReads.fetch(Filter(authors: [author], kinds: kinds), from: url)
    }

    @Test func whiteNoiseSelectionPicksOurV2KeyPackageAndMDK08StillFindsV1() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        let bob = try await TestAccount("bob", relayURLs: [url])
        let upkeep = try await bob.client.ensureKeyPackages()
        guard case .published(let v1)? = upkeep[.v1], case .published(let v2)? = upkeep[.v2] else {
            throw HarnessError.unexpected("key packages not published: \(upkeep)")
        }
        let addressable = try await Self.events(of: bob.publicKey, kinds: [.addressableKeyPackage], on: url)
        #expect(try MDKKeyPackageSelection.select(author: bob.publicKey, from: addressable, now: UnsignedEvent.now()) == v2.ref)
        // MDK 0.8.0 (its peer script's rule): newest first, the first one it parses.
        let both = try await Self.events(of: bob.publicKey, kinds: [.addressableKeyPackage, .keyPackage], on: url)
        let v1Found = both.sorted { $0.createdAt > $1.createdAt }.lazy.compactMap { try? PeerKeyPackage(event: $0) }.first
        #expect(v1Found?.ref == v1.ref)
        #expect(v1Found?.kind == .keyPackage)
        await bob.shutdown()
        await server.stop()
    }

    /// An account that published its v1 key package as kind 30443 (as we did before, and as we still
    /// do when v1 is published alone) breaks White Noise's selection; the next start with both
    /// versions replaces that event in its slot, and White Noise finds our v2 package.
    @Test func aV1KeyPackageOfKind30443LeftByAnOlderStartIsReplaced() async throws {
        let (server, url) = try await ClientHarness.startRelay()
        var v1Only = ClientHarness.options
        v1Only.keyPackageVersions = [.v1]
        let before = try await TestAccount("bob", relayURLs: [url], options: v1Only)
        _ = try await before.client.ensureKeyPackages()
        let old = try await Self.events(of: before.publicKey, kinds: [.addressableKeyPackage], on: url)
        #expect(old.count == 1)
        #expect(throws: MDKKeyPackageSelection.Refused.self) {
            try MDKKeyPackageSelection.select(author: before.publicKey, from: old, now: UnsignedEvent.now())
        }
        await before.shutdown()

        let bob = try await TestAccount("bob", keys: before.keys, databasePath: before.databasePath, relayURLs: [url])
        let upkeep = try await bob.client.ensureKeyPackages()
        guard case .published(let v2)? = upkeep[.v2] else { throw HarnessError.unexpected("no v2 key package: \(upkeep)") }
        #expect(upkeep[.v1].map { if case .republished = $0 { true } else { false } } == true)
        let now = try await Self.events(of: bob.publicKey, kinds: [.addressableKeyPackage], on: url)
        #expect(try MDKKeyPackageSelection.select(author: bob.publicKey, from: now, now: UnsignedEvent.now()) == v2.ref)
        #expect(now.count == 1)
        await bob.shutdown()
        await server.stop()
    }
}
