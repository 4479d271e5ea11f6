import Foundation
import MLS
import Marmot
import Nostr

/// A v1 Marmot group of `size` members as the group benches and the profiling targets build it: a
/// creator, `size - 1` invitees' last-resort key packages, the group data naming the creator as
/// admin, and the founding commit that adds every invitee.
struct BenchGroup {
    let creatorKeys: Keys
    let invitees: [(keyPackage: KeyPackage, privateMaterial: KeyPackagePrivateMaterial)]
    let groupData: NostrGroupData
    let groupID: GroupID

    init(size: Int, name: String) throws {
        creatorKeys = Keys.generate()
        invitees = try (1..<size).map { _ in try Self.keyPackage() }
        groupData = NostrGroupData(
            nostrGroupID: .random(), name: name, description: "", admins: [creatorKeys.publicKey],
            relays: [try RelayURL("ws://127.0.0.1:7777")])
        groupID = GroupID(CipherSuiteProvider.mls128X25519.randomBytes(16))
    }

    /// A fresh member's last-resort key package (MIP-00).
    static func keyPackage() throws -> (keyPackage: KeyPackage, privateMaterial: KeyPackagePrivateMaterial) {
        try KeyPackage.create(
            identity: Data(Keys.generate().publicKey.bytes), keyPackageExtensions: [Extension(LastResortExtension())])
    }

    /// The group founded and every invitee added: the creator's new state and the Welcome.
    func found() throws -> PendingCommit {
        var group = try MLSGroup.create(
            groupID: groupID, signer: .generate(), credential: .basic(identity: Data(creatorKeys.publicKey.bytes)),
            capabilities: .marmotDefault(grease: true),
            groupContextExtensions: MarmotGroupExtensions.groupContextExtensions(
                groupData: groupData, invitees: invitees.map(\.keyPackage)),
            configuration: .marmot)
        return try group.commit(adding: invitees.map(\.keyPackage))
    }

    /// The first invitee's state from the founding Welcome.
    func joinFirst(_ welcome: Welcome) throws -> MLSGroup {
        guard let first = invitees.first else { throw BenchSkip("no invitee") }
        return try MLSGroup.join(
            welcome: welcome, keyPackage: first.keyPackage, privateMaterial: first.privateMaterial, configuration: .marmot)
    }
}
