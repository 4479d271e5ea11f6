import Foundation

/// What the members outside a mutual revocation did on one of its two branches
/// (`BranchTree.uninvolvedEvidence`): their commits on its deepest path, then how many of them
/// sent application messages on it. More commits win, then more senders.
package struct UninvolvedEvidence: Sendable, Hashable, Comparable {
    package let commits: Int
    package let senders: Int

    package static func < (a: UninvolvedEvidence, b: UninvolvedEvidence) -> Bool {
        (a.commits, a.senders) < (b.commits, b.senders)
    }
}
