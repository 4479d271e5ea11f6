import Foundation

/// Sending application data (RFC 9420 §6.3, §9.2, §12.4).
extension MLSGroup {
    /// Encrypts `plaintext` as a PrivateMessage under the next key of this member's application
    /// ratchet, which is then deleted: no key is ever used twice. Receivers decrypt it with `process`.
    ///
    /// Fails with `.pendingProposals` while proposals of this epoch wait for a commit (§12.4: a member
    /// that has seen proposals commits before sending application data), unless the configuration
    /// turns that rule off.
    public mutating func encrypt(_ plaintext: Data, authenticatedData: Data = Data()) throws(GroupError) -> MLSMessage {
        guard isActive else { throw .notAMember }
        // The content and the authenticated data are each an MLS vector, limited to 2^30 - 1 bytes
        // (§2.1.2), and share one PrivateMessage; leave room for the signature and framing.
        guard plaintext.count + authenticatedData.count < (1 << 30) - 4096 else {
            throw .tooLarge("application data of \(plaintext.count + authenticatedData.count) bytes")
        }
        if configuration.commitBeforeApplication, !pendingProposals.isEmpty {
            throw .pendingProposals(pendingProposals.count)
        }
        let authenticated = try sign(
            framedContent(.application(plaintext), authenticatedData: authenticatedData), wireFormat: .privateMessage)
        return try protect(authenticated)
    }
}
