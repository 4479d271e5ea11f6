import Foundation

/// Local policy over pending proposals (RFC 9420 §12.2: a committer chooses which proposals to
/// include; applications may refuse to commit some).
extension MLSGroup {
    /// Runs `body` (typically a `commit`) while only the pending proposals `keep` selects are
    /// visible, then restores the others, so a proposal we refuse to commit stays known for a commit
    /// by another member that refers to it.
    public mutating func withPendingProposals<T>(
        filteredBy keep: (PendingProposal) -> Bool, _ body: (inout MLSGroup) throws(GroupError) -> T
    ) throws(GroupError) -> T {
        let all = pendingProposals
        pendingProposals = all.filter(keep)
        defer { pendingProposals = all }
        return try body(&self)
    }
}
