import Foundation
import Crypto
import MarmotWire
import Nostr
import MLS

extension SystemNotice {
    /// The notice as a stored message of `group`, dated by the commit event that caused it; its id
    /// is derived from that event and the subject, so reprocessing the commit stores it once.
    public func message(in group: GroupID, commit: EventID, createdAt: Int64, me: PublicKey) -> StoredMessage {
        var seed = Data(Self.prefix.utf8)
        seed.append(contentsOf: commit.bytes)
        seed.append(contentsOf: subject.bytes)
        seed.append(contentsOf: change.rawValue.utf8)
        let id = (try? EventID(bytes: Data(SHA256.hash(data: seed)))) ?? commit
        return StoredMessage(
            rumorID: id, mlsGroupID: group, sender: actor, kind: Self.kind, content: content, createdAt: createdAt,
            isMine: actor == me, deliveryState: .notice, outerEventID: commit)
    }
}

extension DeliveryState {
    /// A system line made locally from a commit (`SystemNotice`); never a rumor from the wire.
    public static let notice = DeliveryState(rawValue: "notice")
}
