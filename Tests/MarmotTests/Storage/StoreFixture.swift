import Foundation
import MLS
import Nostr
@testable import Marmot

/// What the per-table store suites share: an account's storage key, a group row and a message of ours.
protocol StoreFixture {
    var account: Keys { get }
    var installation: InstallationSecret { get }
}

extension StoreFixture {
    var key: StorageKey { StorageKey(deriving: account.secretKey, installationSecret: installation) }

    /// A group with MLS id `byte` repeated, administered by the account.
    func makeGroup(_ byte: UInt8, status: GroupStatus = .active) -> StoredGroup {
        StoredGroup(
            mlsGroupID: GroupID(Data(repeating: byte, count: 32)), nostrGroupID: .random(), mlsState: Data("s".utf8), epoch: 1,
            name: "g", groupDescription: "", admins: [account.publicKey], relays: [try! RelayURL("wss://relay.example.com")],
            peer: nil, status: status, createdAt: 1_800_000_000)
    }

    /// A pending chat message of ours saying `text` in `group`.
    func message(_ text: String, in group: GroupID) throws -> StoredMessage {
        let rumor = try ChatRumor(author: account.publicKey, content: text, kind: .chatMessage, tags: [], createdAt: 1_800_000_000)
        return StoredMessage(rumor: rumor, mlsGroupID: group, isMine: true, deliveryState: .pending, outerEventID: nil)
    }
}
