import Foundation
import Nostr

/// Component 0x8003 `marmot.group.admin-policy.v1`: `varint(32·n) ‖ keys`, non-empty, byte-sorted,
/// unique x-only account keys (app-components/admin-policy; MDK `encode_admin_policy`). That each
/// admin is a current member is a group-state check done by the caller.
public struct AdminPolicy: Hashable, Sendable {
    /// Ascending, unique, at least one.
    public let admins: [PublicKey]

    public init(admins: [PublicKey]) throws(V2ComponentError) {
        let sorted = Array(Set(admins)).sorted()
        guard !sorted.isEmpty else { throw .emptyAdminPolicy }
        self.admins = sorted
    }

    public func isAdmin(_ key: PublicKey) -> Bool { admins.contains(key) }

    public var bytes: [UInt8] {
        var out: [UInt8] = []
        QUICVarint.encode(UInt64(admins.count * 32), into: &out)
        for admin in admins { out.append(contentsOf: admin.bytes) }
        return out
    }

    public init(bytes: [UInt8]) throws(V2ComponentError) {
        var cursor = bytes[...]
        let length = try QUICVarint.decode(&cursor)
        guard UInt64(cursor.count) == length else {
            throw UInt64(cursor.count) < length ? .truncated("admin policy") : .trailingBytes("admin policy")
        }
        guard length > 0 else { throw .emptyAdminPolicy }
        guard length % 32 == 0 else { throw .adminPolicyLength }
        var admins: [PublicKey] = []
        var index = cursor.startIndex
        while index < cursor.endIndex {
            let keyBytes = cursor[index..<index + 32]
            guard let key = try? PublicKey(bytes: keyBytes) else { throw .invalidAdminKey }
            if let last = admins.last, !last.bytes.lexicographicallyPrecedes(key.bytes) { throw .unsortedAdmins }
            admins.append(key)
            index += 32
        }
        self.admins = admins
    }
}
