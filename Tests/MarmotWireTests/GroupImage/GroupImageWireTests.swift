import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot
@testable import MarmotWire

/// The wire forms of a group picture: v2 components 0x8002 and 0x8007 (MDK 0.9.14
/// `blossom_image.rs`, `avatar_url.rs`), v1 NostrGroupData image fields, and the rules that read
/// and change them.
struct GroupImageWireTests {
    static func image(type: String? = "image/png") throws -> GroupImage {
        try GroupImage(
            blobSHA256: Data(repeating: 0xAA, count: 32), key: Data(repeating: 0xBB, count: 32),
            nonce: Data(repeating: 0xCC, count: 12), uploadKey: Data(repeating: 0xDD, count: 32), mediaType: type)
    }

    @Test func blossomImageRoundTripsAndAbsentIsFiveEmptyFields() throws {
        #expect(try GroupBlossomImage.bytes(nil) == [0, 0, 0, 0, 0])
        #expect(try GroupBlossomImage.decode([0, 0, 0, 0, 0]) == nil)
        let bytes = try GroupBlossomImage.bytes(try Self.image())
        #expect(bytes.count == 1 + 32 + 1 + 32 + 1 + 12 + 1 + 32 + 1 + 9)
        #expect(bytes.prefix(2) == [32, 0xAA])
        #expect(try GroupBlossomImage.decode(bytes) == (try Self.image()))
        #expect(throws: GroupImageError.self) { try GroupBlossomImage.bytes(try Self.image(type: nil)) }
    }

    /// MDK refuses a partly set picture, a non-canonical type, oversize fields and trailing bytes.
    @Test func hostileBlossomImagesAreRefused() throws {
        let good = try GroupBlossomImage.bytes(try Self.image())
        #expect(throws: V2ComponentError.self) { try GroupBlossomImage.decode(good + [0]) }
        #expect(throws: V2ComponentError.self) { try GroupBlossomImage.decode([]) }
        // Only the hash set.
        #expect(throws: V2ComponentError.self) { try GroupBlossomImage.decode([32] + Array(repeating: 1, count: 32) + [0, 0, 0, 0]) }
        // A 33-byte hash.
        #expect(throws: V2ComponentError.self) { try GroupBlossomImage.decode([33] + Array(repeating: 1, count: 33) + [0, 0, 0, 0]) }
        // A media type that is not canonical.
        var upper = Array(good.dropLast(10))
        QUICVarint.encodeBytes(Array("Image/PNG".utf8), into: &upper)
        #expect(throws: V2ComponentError.self) { try GroupBlossomImage.decode(upper) }
        var noType = Array(good.dropLast(10))
        noType.append(0)
        #expect(throws: V2ComponentError.self) { try GroupBlossomImage.decode(noType) }
    }

    @Test func avatarURLIsHTTPSOnly() throws {
        let avatar = try GroupAvatarURL(url: "https://pics.example.com/a.png", dim: Array("64x64".utf8))
        #expect(try GroupAvatarURL.decode(avatar.bytes) == avatar)
        #expect(try GroupAvatarURL.decode([0, 0, 0]) == nil)
        #expect(throws: V2ComponentError.self) { try GroupAvatarURL.decode([0, 1, 0x41, 0]) }
        for hostile in [
            "http://pics.example.com/a.png", "file:///etc/passwd", "javascript:alert(1)", "https://user:pw@example.com/a",
            "https://example.com/a#frag", "https:///nohost", "",
        ] {
            #expect(throws: GroupImageError.self, "\(hostile)") { try GroupAvatarURL(url: hostile) }
        }
        #expect(throws: GroupImageError.self) { try GroupAvatarURL(url: "https://" + String(repeating: "a", count: 2_100) + ".com") }
    }

    /// v1: the picture lives in NostrGroupData's four fields; set and cleared together; the other
    /// fields are untouched.
    @Test func v1RulesReadAndWriteTheImageFields() throws {
        let rules = V1GroupRules()
        let admin = Keys.generate().publicKey
        let metadata = GroupMetadata(
            nostrGroupID: NostrGroupID.random(), name: "pics", description: "", admins: [admin],
            relays: [try RelayURL("wss://relay.example.com")])
        let extensions = try rules.groupContextExtensions(metadata, invitees: [])
        #expect(try rules.metadata(of: extensions).image == nil)
        var withImage = metadata
        withImage.image = try Self.image(type: nil)
        let proposals = try rules.proposals(changing: extensions, to: withImage)
        guard case .groupContextExtensions(let gce) = try #require(proposals.first) else { Issue.record("not a GCE"); return }
        let data = try NostrGroupData(groupContextExtensions: gce.extensions)
        #expect(data.imageHash == Data(repeating: 0xAA, count: 32) && data.imageUploadKey == Data(repeating: 0xDD, count: 32))
        #expect(try rules.metadata(of: gce.extensions).image == (try Self.image(type: nil)))
        #expect(data.name == "pics")
        let cleared = try rules.proposals(changing: gce.extensions, to: metadata)
        guard case .groupContextExtensions(let back) = try #require(cleared.first) else { Issue.record("not a GCE"); return }
        let clearedData = try NostrGroupData(groupContextExtensions: back.extensions)
        #expect(clearedData.imageHash == nil && clearedData.imageKey == nil && clearedData.imageNonce == nil)
        #expect(clearedData.imageUploadKey == nil)
    }

    /// v2: setting a picture is one AppDataUpdate of 0x8002; clearing writes the absent state; a
    /// rename leaves the picture's bytes alone.
    @Test func v2RulesUpdateComponent0x8002() throws {
        let rules = V2GroupRules()
        let admin = Keys.generate().publicKey
        let metadata = GroupMetadata(
            nostrGroupID: NostrGroupID.random(), name: "pics", description: "", admins: [admin],
            relays: [try RelayURL("wss://relay.example.com")])
        let extensions = try rules.groupContextExtensions(metadata, invitees: [])
        var withImage = metadata
        withImage.image = try Self.image()
        let proposals = try rules.proposals(changing: extensions, to: withImage)
        #expect(proposals.count == 1)
        guard case .appDataUpdate(let update) = try #require(proposals.first) else { Issue.record("not an update"); return }
        #expect(update.componentID == MarmotComponentID.blossomImage)
        var dictionary = try #require(try extensions.payload(AppDataDictionary.self))
        dictionary.set(MarmotComponentID.blossomImage, Data(try GroupBlossomImage.bytes(try Self.image())))
        let after = extensions.map { $0.type == .appDataDictionary ? Extension(dictionary) : $0 }
        #expect(try rules.metadata(of: after).image == (try Self.image()))
        var renamed = try rules.metadata(of: after)
        renamed.name = "renamed"
        let renames = try rules.proposals(changing: after, to: renamed)
        #expect(renames.count == 1)
        var cleared = try rules.metadata(of: after)
        cleared.image = nil
        let clears = try rules.proposals(changing: after, to: cleared)
        guard case .appDataUpdate(let clear) = try #require(clears.first) else { Issue.record("not an update"); return }
        #expect(clear.componentID == MarmotComponentID.blossomImage)
        #expect(MarmotComponentID.supported.contains(MarmotComponentID.blossomImage))
        #expect(V2KeyPackage.defaultSupportedComponents.contains(MarmotComponentID.blossomImage))
    }
}
