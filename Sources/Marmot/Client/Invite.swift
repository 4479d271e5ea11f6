import Foundation
import MLS
import Nostr

/// A Welcome we were sent and have not yet accepted or declined (MIP-02): the group is joined at
/// the MLS layer to prove who invited us, but it stays `pending`, unsubscribed and unlisted until
/// the user accepts it. Declining deletes it, leaving no group behind.
public struct Invite: Sendable, Hashable, Identifiable {
    /// The MLS group id of the group we would join.
    public let id: GroupID
    /// Who invited us: the NIP-59 seal's signer, proven to be an admin member of the group.
    public let inviter: PublicKey
    public let name: String
    public let groupDescription: String
    /// Members' Nostr identities at the Welcome's epoch, ourselves included.
    public let members: [PublicKey]
    public let admins: [PublicKey]
    /// When the Welcome arrived (Unix seconds).
    public let receivedAt: Int64
    /// The gift wrap that carried it.
    public let wrapID: EventID

    public init(
        id: GroupID, inviter: PublicKey, name: String, groupDescription: String, members: [PublicKey],
        admins: [PublicKey], receivedAt: Int64, wrapID: EventID
    ) {
        self.id = id
        self.inviter = inviter
        self.name = name
        self.groupDescription = groupDescription
        self.members = members
        self.admins = admins
        self.receivedAt = receivedAt
        self.wrapID = wrapID
    }
}

/// What the store keeps about a pending invitation beside its pending group row: the proven inviter
/// and the gift wrap. Sealed in the settings table like every client setting.
struct InviteRecord: Sendable, Equatable {
    static let version: UInt8 = 1

    let inviter: PublicKey
    let wrapID: EventID
    let receivedAt: Int64

    func encoded() -> Data {
        var w = TLSWriter(capacity: 80)
        w.write(Self.version)
        w.writeFixed(inviter.bytes)
        w.writeFixed(wrapID.bytes)
        w.write(UInt64(bitPattern: receivedAt))
        return w.data
    }

    init(inviter: PublicKey, wrapID: EventID, receivedAt: Int64) {
        self.inviter = inviter
        self.wrapID = wrapID
        self.receivedAt = receivedAt
    }

    init(encoded data: Data) throws {
        var r = TLSReader(data)
        guard try r.readUInt8() == Self.version else { throw StorageError.corruptRow("invite record version") }
        inviter = try PublicKey(bytes: try r.readFixed(32))
        wrapID = try EventID(bytes: try r.readFixed(32))
        receivedAt = Int64(bitPattern: try r.readUInt64())
        try r.finish()
    }
}
