import Foundation
import Nostr
import TestSupport

/// Nostr tags (Swift Testing also exports a `Tag`).
typealias Tag = Nostr.Tag

/// Known answers from real MDK 0.8.0 output, as published in the shared wire reference
/// (`reference/marmot-wire.md` §12). They are short literals, so tests state them inline.
enum MarmotVectors {
    /// §12.3: NostrGroupData of the group "Test Group" (121 bytes).
    static let groupDataHex =
        "0002a731d4a64ada84f6241eb67db8d75410f3e4f056e1d59cdf026930bd0bba18cc"
        + "0a546573742047726f7570"
        + "0d41206465736372697074696f6e"
        + "205341d2d1ec69b1dc3ed2c9949d80f70c322315057d2021407aa52526865a04b1"
        + "18177773733a2f2f72656c61792e6578616d706c652e636f6d"
        + "00000000"
    static let nostrGroupIDHex = "a731d4a64ada84f6241eb67db8d75410f3e4f056e1d59cdf026930bd0bba18cc"
    static let adminHex = "5341d2d1ec69b1dc3ed2c9949d80f70c322315057d2021407aa52526865a04b1"
    static let mlsGroupIDHex = "0ec68a358e73307e076a8f7bd9a01750"

    /// §12.4: epoch-1 exporter secret, its group-event key, a SelfRemove kind-445 content and a rumor.
    static let epoch1ExporterSecretHex = "1992425b2bcb4822e7228dd98ada213c31171024725cc8ddfa2c8e238b7ae1bd"
    static let epoch1GroupEventKeyHex = "03682ef68d654f40e1cc69ef231bb2a1d2afee2acd95f2007acdde6cd2f8651b"
    static let selfRemoveContent =
        "PvNhATsliP31BtkjzrA3MD05rv9RfdhdVt44YjtKidq/jb+zN9CTFgo9x5JEOfnQLWQgbolj+O1FOQt91ez/gtEA+LTowaY4VNlO+I6cvAlK4tNmHmiAOrNoPxAR2usbnYsUjEZX4kkNe/ViGS0T5aD1IyZV4nhINggO4jKiJB2tA92r92QCcjI3PtJVHu7VDOlY1sNvbhfifUnpNj4cUX+u/a3A"
    static let rumorJSON =
        #"{"id":"c5d45a7a33d87b0a5ebe7a5561efe0f09ce9fdcb89dca52a947d41d88e1d649f","pubkey":"5341d2d1ec69b1dc3ed2c9949d80f70c322315057d2021407aa52526865a04b1","created_at":1795315453,"kind":9,"tags":[["t","x"]],"content":"hello marmot"}"#

    /// §12.5: another exporter secret and its group-event key.
    static let mip04ExporterSecretHex = "32909ba0109ef5fc477d53eb3022a4cd599614445bda76352a3b726f133d9840"
    static let mip04GroupEventKeyHex = "7348ae924c8a05e6a12c7424feecdbda3dd0ae7a49ba23b2add052a08165ee0c"

    /// §12.1: a kind-30443 KeyPackage event (content and tags; the vector carries no signature).
    static let keyPackagePubkeyHex = "a79ce1f010646ac8e2288b1c9598b754d9517e84d35cba8f3e3c96f1e0d9ac1b"
    static let keyPackageContent =
        "AAEAASCzoBIGrCBCr1P/ZG8jLp8Bu0BL1I7dJdy6w1npD5J6ViCKKciUe6LfDlyWfKtZiORbFMQTjRsl8vsGeKU9XCqoDiAq5udkgRsHvNsZXJlbm+3/t7VxK61zrA4a6+1cfkOtjgABIKec4fAQZGrI4iiLHJWYt1TZUX6E01y6jz48lvHg2awbAgABBAABysoGAAry7qqqBAAKmpoEAAE6OgEAAAAAawJI7QAAAABrcRT9AEBA/zZXen872t7xDOSPkajVAficJRX/Yj45Dj8mQ+vkMiPIb9ybWBNdClCxcjIEnYYtzCfwmIGiyM+CjjZ8CH4ADwMACgBAQHtn0gebWsLWQuI8lO9vJjbINajtV7QuzxGk0xNAXfvDmlOKYc3NY2ckAL2C+DvQm38e/JAfJbjwbly58r4PxgY="
    static let keyPackageTags: [[String]] = [
        ["d", "880a03451c87e53306a37d524559f3ae2c3c6d8494043da83d2b7dcae3e7fc40"],
        ["mls_protocol_version", "1.0"],
        ["mls_ciphersuite", "0x0001"],
        ["mls_extensions", "0x000a", "0xf2ee"],
        ["mls_proposals", "0x000a"],
        ["relays", "wss://relay.example.com", "wss://relay2.example.com/"],
        ["i", "54923be37b66d773933f22ad0b76f870c99d933c5cb81eba552530daa64265c7"],
        ["client", "MDK/0.8.0"],
        ["encoding", "base64"],
    ]
    static let keyPackageNotBefore: UInt64 = 1_795_311_853
    static let keyPackageNotAfter: UInt64 = 1_802_573_053

    static func bytes(_ hex: String) -> Data {
        guard let data = Data(testHex: hex) else { fatalError("bad hex literal in test vectors") }
        return data
    }

    /// Prints the one-line vector report the guide asks for.
    static func report(_ what: String, ran: Int) {
        SharedFixtures.report("reference/marmot-wire.md \(what)", ran: ran, skipped: 0, reason: "none")
    }
}
