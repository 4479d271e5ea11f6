import Foundation
import Nostr

/// What one of our group-data commits changed: the fields the user set, not the branch's whole data.
///
/// When that commit loses a race, only this intent is made again on the winning branch, applied to
/// the winner's data, so the winner's own rename or admin change is never reverted by our copy of
/// the old branch (issue 24, N4; marmot-wire §5.7).
struct GroupDataIntent: Sendable, Equatable {
    /// The new name, if the commit renamed the group.
    var name: String?
    /// The new description, if the commit changed it.
    var groupDescription: String?
    /// The new picture (`.some(nil)`: cleared), if the commit changed it.
    var image: GroupImage??
    /// Admins the commit added.
    var promoted: Set<PublicKey> = []
    /// Admins the commit removed from the admin list.
    var demoted: Set<PublicKey> = []

    /// The change from `before` to `after`.
    init(from before: GroupMetadata, to after: GroupMetadata) {
        name = before.name == after.name ? nil : after.name
        groupDescription = before.groupDescription == after.groupDescription ? nil : after.groupDescription
        image = before.image == after.image ? nil : .some(after.image)
        promoted = Set(after.admins).subtracting(before.admins)
        demoted = Set(before.admins).subtracting(after.admins)
    }

    /// Nothing changed (a self-update, adds, removals).
    var isEmpty: Bool { name == nil && groupDescription == nil && image == nil && !changesAdmins }

    var changesAdmins: Bool { !promoted.isEmpty || !demoted.isEmpty }

    /// `data` with this change made: the fields we set replaced, our promotions and demotions applied
    /// to its admin list; everything else stays the winner's.
    func applied(to data: GroupMetadata) -> GroupMetadata {
        var result = data
        if let name { result.name = name }
        if let groupDescription { result.groupDescription = groupDescription }
        if let image { result.image = image }
        if changesAdmins { result.admins = Set(data.admins).union(promoted).subtracting(demoted).sorted() }
        return result
    }
}
