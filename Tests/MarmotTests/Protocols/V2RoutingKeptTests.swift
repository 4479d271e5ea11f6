import Foundation
import MLS
import Nostr
import Testing
@testable import Marmot

/// Relay strings in a v2 group's routing (0x8004) are kept exactly as received (issue 25).
struct V2RoutingKeptTests {
    @Test func renameLeavesRoutingAsReceived() throws {
        let rules = V2GroupRules()
        let admin = Keys.generate().publicKey
        let metadata = GroupMetadata(
            nostrGroupID: NostrGroupID.random(), name: "Before", description: "", admins: [admin],
            relays: [try RelayURL("wss://a.example")])
        var extensions = try rules.groupContextExtensions(metadata, invitees: [])
        // As another client may write it: an upper-case host and a trailing slash.
        let received = try NostrRouting(
            nostrGroupID: metadata.nostrGroupID.bytes, relays: ["wss://Relay.Example.COM/", "wss://a.example"])
        var dictionary = try #require(try extensions.payload(AppDataDictionary.self))
        dictionary.set(MarmotComponentID.nostrRouting, Data(received.bytes))
        extensions = extensions.map { $0.type == .appDataDictionary ? Extension(dictionary) : $0 }

        var renamed = try rules.metadata(of: extensions)
        renamed.name = "After"
        let proposals = try rules.proposals(changing: extensions, to: renamed)
        #expect(proposals.compactMap(V2GroupRules.componentID) == [MarmotComponentID.groupProfile])

        // A real change of relays is written (and then in our form).
        var moved = renamed
        moved.relays = [try RelayURL("wss://c.example")]
        #expect(try rules.proposals(changing: extensions, to: moved).compactMap(V2GroupRules.componentID)
            == [MarmotComponentID.groupProfile, MarmotComponentID.nostrRouting])
    }
}
