import Foundation

/// One new member a Welcome is encrypted to (RFC 9420 §12.4.3.1).
public struct WelcomeRecipient: Sendable, CustomStringConvertible {
    /// The member's KeyPackageRef, naming its entry in the Welcome.
    public var keyPackageRef: KeyPackageRef
    /// The KeyPackage's init_key, which the GroupSecrets are sealed to.
    public var initKey: HPKEPublicKey
    /// The path secret of the lowest common ancestor of the committer and this member, when the
    /// Commit has a path.
    public var pathSecret: Data?

    public init(keyPackageRef: KeyPackageRef, initKey: HPKEPublicKey, pathSecret: Data? = nil) {
        self.keyPackageRef = keyPackageRef
        self.initKey = initKey
        self.pathSecret = pathSecret
    }

    /// The recipient for an added KeyPackage.
    public init(keyPackage: KeyPackage, pathSecret: Data? = nil, provider: CipherSuiteProvider) {
        self.init(
            keyPackageRef: provider.keyPackageRef(encodedKeyPackage: keyPackage.tlsSerialized),
            initKey: keyPackage.initKey, pathSecret: pathSecret)
    }

    public var description: String { "WelcomeRecipient(\(keyPackageRef), redacted)" }
}

/// Building a Welcome for the members a Commit adds (RFC 9420 §12.4.3.1).
extension Welcome {
    /// Seals the signed `groupInfo` of the new epoch with its welcome key and nonce (empty AAD), then
    /// each recipient's GroupSecrets{joiner_secret, path_secret, psks} with
    /// EncryptWithLabel(init_key, "Welcome", encrypted_group_info, .). `psks` are the PSKs of the
    /// Commit, in the order psk_secret was derived over.
    public static func make(
        groupInfo: GroupInfo, epochSecrets: EpochSecrets, psks: [PreSharedKeyID] = [], recipients: [WelcomeRecipient]
    ) throws(WelcomeError) -> Welcome {
        let provider = epochSecrets.provider
        let suite = groupInfo.groupContext.cipherSuite
        guard suite == provider.suite else { throw .cipherSuiteMismatch(expected: provider.suite, actual: suite) }
        let welcomeKey = epochSecrets.welcomeKey
        do {
            let encryptedGroupInfo = try provider.seal(
                key: welcomeKey.key, nonce: welcomeKey.nonce, aad: Data(), plaintext: groupInfo.tlsSerialized)
            var secrets: [EncryptedGroupSecrets] = []
            secrets.reserveCapacity(recipients.count)
            for recipient in recipients {
                let groupSecrets = GroupSecrets(
                    joinerSecret: epochSecrets.joinerSecret, pathSecret: recipient.pathSecret, psks: psks)
                let sealed = try provider.encryptWithLabel(
                    recipient.initKey, label: groupSecretsLabel, context: encryptedGroupInfo,
                    plaintext: groupSecrets.tlsSerialized)
                secrets.append(EncryptedGroupSecrets(
                    newMember: recipient.keyPackageRef,
                    encryptedGroupSecrets: HPKECiphertext(kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext)))
            }
            return Welcome(cipherSuite: suite, secrets: secrets, encryptedGroupInfo: encryptedGroupInfo)
        } catch {
            throw .crypto(error)
        }
    }
}
