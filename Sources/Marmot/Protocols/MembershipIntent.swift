import Foundation
import Nostr

/// Who one of our commits added or removed, still to do on the branch that won the race.
///
/// When our commit loses, the winning branch does not have our change; the people we invited got a
/// Welcome to a branch nobody follows. MDK 0.9.14 re-makes a lost intent against the selected state
/// (issue 24; `cgka-engine` intents); here only what the winner did not already do is made again.
struct MembershipIntent: Sendable, Equatable {
    /// Accounts our commit added that are not members on the winning branch.
    var add: [PublicKey]
    /// Accounts our commit removed that are still members on the winning branch.
    var remove: [PublicKey]

    /// What our commit from `before` to `ours` changed and `winner` lacks; nil when nothing is left.
    init?(before: Set<PublicKey>, ours: Set<PublicKey>, winner: Set<PublicKey>, us: PublicKey) {
        add = ours.subtracting(before).subtracting(winner).subtracting([us]).sorted()
        remove = before.subtracting(ours).intersection(winner).subtracting([us]).sorted()
        if add.isEmpty && remove.isEmpty { return nil }
    }
}

