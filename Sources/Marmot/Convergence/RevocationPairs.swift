import Foundation

/// Which branches' revocations count, among the branches from one fork, given how a version
/// settles two branches that revoke each other (`MutualRevocation`).
///
/// A mutual pair is two branches each revoking an authority the other used (two admins demoting or
/// removing each other, or a removed admin revoking back its remover). With `.leaveBothOut` (v1)
/// the pair's revocations count only against each other: both are left out and neither leaves out
/// a later commit made beside them. With `.weighEvidence` (v2) the pair never leaves each other out
/// by this rule (`BranchTree.excludedTips` weighs them), and their revocations count against every
/// other branch, since either may be the history that stands.
package struct RevocationPairs: Sendable {
    private var mutual: Set<[Int]> = []
    private var inMutual: Set<Int> = []
    private let rule: MutualRevocation

    /// Over `count` branches, where `revokes(j, i)` says whether branch `j` revokes an authority
    /// branch `i` used.
    package init(count: Int, rule: MutualRevocation, revokes: (Int, Int) -> Bool) {
        self.rule = rule
        for i in 0..<count {
            for j in (i + 1)..<max(i + 1, count) where revokes(j, i) && revokes(i, j) {
                mutual.insert([i, j])
                inMutual.formUnion([i, j])
            }
        }
    }

    /// The mutual pairs, each as its two branch indices, lower first.
    package var pairs: [(Int, Int)] { mutual.sorted { $0.lexicographicallyPrecedes($1) }.map { ($0[0], $0[1]) } }

    /// Whether branch `j`'s revocations count against branch `i`.
    package func counts(_ j: Int, against i: Int) -> Bool {
        let paired = mutual.contains([min(i, j), max(i, j)])
        switch rule {
        case .leaveBothOut: return !inMutual.contains(j) || paired
        case .weighEvidence: return !paired
        }
    }
}
