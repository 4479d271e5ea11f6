import Foundation

/// How two branches from one fork that revoke each other are settled.
///
/// The v1 client leaves both out (the group stays at the fork), as it has since issue 24. For v2
/// that rule let a removed admin undo its removal at will: it only had to revoke its remover from
/// the state before (security review 2026-12-01, D1), and MDK 0.9.14 has no such rule, so White
/// Noise kept it out while we let it back. v2 therefore weighs the pair by the evidence of the
/// members neither branch revokes (`BranchTree.excludedTips`) and otherwise ranks it as MDK does.
package enum MutualRevocation: Sendable, Hashable {
    /// Both branches are left out.
    case leaveBothOut
    /// The branch with less evidence from uninvolved members is left out; with equal evidence,
    /// neither, and branch selection ranks them (MDK 0.9.14 `select_canonical_branch`).
    case weighEvidence
}
