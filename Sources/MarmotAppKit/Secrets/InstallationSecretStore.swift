import Foundation
import MarmotCore

/// Where the platform keeps this installation's storage secret (`InstallationSecret`), as a second
/// item beside the nsec: another Keychain account, another 0600 file, another in-memory slot.
///
/// The secret salts every account's storage key, so another app that holds the same nsec cannot open
/// this installation's databases. It belongs to the installation, not the account: it is never
/// deleted on logout (re-importing the same nsec on this device reopens its data), so the protocol
/// has no delete.
public protocol InstallationSecretStore: Sendable {
    /// The stored secret, or nil when none is stored; `.invalidInstallationSecret` when the stored
    /// value is not one.
    func loadInstallationSecret() throws(SecretStoreError) -> InstallationSecret?
    /// Stores `secret`, replacing any previous one.
    func saveInstallationSecret(_ secret: InstallationSecret) throws(SecretStoreError)
}

extension InstallationSecretStore {
    /// The stored secret; the first time, a new one that is saved before it is returned (so a
    /// database is never keyed with a secret that was not kept).
    public func provisionInstallationSecret() throws(SecretStoreError) -> InstallationSecret {
        if let stored = try loadInstallationSecret() { return stored }
        let secret = InstallationSecret.generate()
        try saveInstallationSecret(secret)
        return secret
    }
}

extension FileSecretStore: InstallationSecretStore {
    /// The file name of the installation secret, in the nsec file's folder.
    public static let installationSecretFileName = "install-secret"

    /// `install-secret` beside the nsec file, kept the same way (0600, atomic writes).
    public var installationSecretURL: URL {
        fileURL.deletingLastPathComponent().appendingPathComponent(Self.installationSecretFileName)
    }

    public func loadInstallationSecret() throws(SecretStoreError) -> InstallationSecret? {
        guard let text = try FileSecretStore(fileURL: installationSecretURL).load() else { return nil }
        guard let secret = InstallationSecret(hex: text) else { throw .invalidInstallationSecret }
        return secret
    }

    public func saveInstallationSecret(_ secret: InstallationSecret) throws(SecretStoreError) {
        try FileSecretStore(fileURL: installationSecretURL).save(secret.hexEncodedForStorage())
    }
}

#if canImport(Security)
    extension KeychainSecretStore: InstallationSecretStore {
        /// The Keychain account of the installation secret, in the nsec item's service.
        public static let installationSecretAccount = "install-secret"

        private var installationSecretItem: KeychainSecretStore {
            KeychainSecretStore(service: service, account: Self.installationSecretAccount, accessGroup: accessGroup)
        }

        public func loadInstallationSecret() throws(SecretStoreError) -> InstallationSecret? {
            guard let text = try installationSecretItem.load() else { return nil }
            guard let secret = InstallationSecret(hex: text) else { throw .invalidInstallationSecret }
            return secret
        }

        public func saveInstallationSecret(_ secret: InstallationSecret) throws(SecretStoreError) {
            try installationSecretItem.save(secret.hexEncodedForStorage())
        }
    }
#endif
