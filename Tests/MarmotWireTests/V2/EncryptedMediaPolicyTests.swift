import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot
@testable import MarmotWire

/// Component 0x800b: its codec, and the groups we create requiring it as White Noise's do.
struct EncryptedMediaPolicyTests {
    @Test func blossomDefaultRoundTripsAndIsWhatMDKWrites() throws {
        let policy = try EncryptedMediaPolicy.blossom()
        #expect(policy.allowedLocatorKinds == ["blossom-v1"])
        #expect(policy.endpoints.map(\.baseURL) == [
            "https://blossom.divine.video/", "https://blossom.ditto.pub/", "https://cdn.hzrd149.com/",
        ])
        #expect(try EncryptedMediaPolicy(bytes: policy.bytes) == policy)
        // varint(18) "encrypted-media-v2", varint(11) [varint(10) "blossom-v1"], then the endpoints.
        let bytes = policy.bytes
        #expect(Array(bytes.prefix(19)) == [18] + Array("encrypted-media-v2".utf8))
        #expect(Array(bytes[19..<31]) == [11, 10] + Array("blossom-v1".utf8))
    }

    @Test func malformedPoliciesAreRefused() throws {
        let good = try EncryptedMediaPolicy.blossom(["https://b.example/"]).bytes
        func vectors(_ format: String, _ kinds: [String], _ endpoints: [(String, String)], trailing: [UInt8] = []) -> [UInt8] {
            var allowed: [UInt8] = [], entries: [UInt8] = [], out: [UInt8] = []
            for kind in kinds { QUICVarint.encodeBytes(Array(kind.utf8), into: &allowed) }
            for (kind, url) in endpoints {
                QUICVarint.encodeBytes(Array(kind.utf8), into: &entries)
                QUICVarint.encodeBytes(Array(url.utf8), into: &entries)
            }
            QUICVarint.encodeBytes(Array(format.utf8), into: &out)
            QUICVarint.encodeBytes(allowed, into: &out)
            QUICVarint.encodeBytes(entries, into: &out)
            return out + trailing
        }
        #expect(vectors("encrypted-media-v2", ["blossom-v1"], [("blossom-v1", "https://b.example/")]) == good)
        let bad: [[UInt8]] = [
            vectors("encrypted-media-v1", ["blossom-v1"], [("blossom-v1", "https://b.example/")]),
            vectors("encrypted-media-v2", [], [("blossom-v1", "https://b.example/")]),
            vectors("encrypted-media-v2", ["blossom-v1", "blossom-v1"], [("blossom-v1", "https://b.example/")]),
            vectors("encrypted-media-v2", ["Blossom"], [("Blossom", "https://b.example/")]),
            vectors("encrypted-media-v2", ["blossom-v1"], []),
            vectors("encrypted-media-v2", ["blossom-v1"], [("ipfs-v1", "https://b.example/")]),
            vectors("encrypted-media-v2", ["blossom-v1"], [("blossom-v1", "ftp://b.example/")]),
            vectors("encrypted-media-v2", ["blossom-v1"], [("blossom-v1", "https://u:p@b.example/")]),
            vectors("encrypted-media-v2", ["blossom-v1"], [("blossom-v1", "https://b.example/?q=1")]),
            vectors("encrypted-media-v2", ["blossom-v1"], [("blossom-v1", "https://b.example/"), ("blossom-v1", "https://b.example/")]),
            vectors("encrypted-media-v2", ["blossom-v1"], [("blossom-v1", "https://b.example/")], trailing: [0]),
            Array(good.dropLast()),
        ]
        for bytes in bad {
            #expect(throws: V2ComponentError.self) { try EncryptedMediaPolicy(bytes: bytes) }
        }
    }

    /// Groups we create require 0x800b and state its policy, as White Noise's do
    /// (`marmot-app/src/client/mod.rs` 1241-1262), so its members may send media in them.
    @Test func groupsWeCreateRequireEncryptedMediaV2() throws {
        let keys = Keys.generate()
        let metadata = GroupMetadata(
            nostrGroupID: NostrGroupID.random(), name: "pics", description: "", admins: [keys.publicKey],
            relays: [try RelayURL("wss://relay.example")])
        let extensions = try V2GroupRules().groupContextExtensions(metadata, invitees: [])
        let components = try GroupComponents(groupContextExtensions: extensions)
        #expect(components.required.contains(MarmotComponentID.encryptedMediaV2))
        let raw = try #require(components.raw(MarmotComponentID.encryptedMediaV2))
        #expect(try EncryptedMediaPolicy(bytes: Array(raw)) == EncryptedMediaPolicy.blossom())
        // Our own leaves advertise it, so we can be invited into such groups.
        #expect(V2KeyPackage.defaultSupportedComponents.contains(MarmotComponentID.encryptedMediaV2))
        // A metadata change leaves the component as it is.
        var renamed = try V2GroupRules().metadata(of: extensions)
        renamed.name = "pictures"
        let proposals = try V2GroupRules().proposals(changing: extensions, to: renamed)
        #expect(proposals.compactMap(V2GroupRules.componentID) == [MarmotComponentID.groupProfile])
    }

    /// An invitee whose leaf does not support 0x800b cannot be added to a group we create.
    @Test func anInviteeWithoutEncryptedMediaIsRefused() throws {
        let keys = Keys.generate()
        let invitee = try V2KeyPackage.create(
            keys: Keys.generate(),
            supportedComponents: V2KeyPackage.defaultSupportedComponents.filter { $0 != MarmotComponentID.encryptedMediaV2 }
        ).keyPackage
        let metadata = GroupMetadata(
            nostrGroupID: NostrGroupID.random(), name: "", description: "", admins: [keys.publicKey],
            relays: [try RelayURL("wss://relay.example")])
        #expect(throws: V2WelcomeError.unsupportedRequiredComponents([MarmotComponentID.encryptedMediaV2])) {
            try V2GroupRules().groupContextExtensions(metadata, invitees: [invitee])
        }
    }
}
