import Foundation

/// The secrets one epoch of the key schedule yields (RFC 9420 §8, Table 4).
///
/// Not `Codable` and redacted when printed. The fields are readable so the group layer can persist
/// them encrypted and drop them on the deletion schedule of §9.2; `init(restoring…)` reloads them.
public struct EpochSecrets: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let provider: CipherSuiteProvider
    /// joiner_secret: placed in the Welcome's GroupSecrets for new members (§12.4.3.1).
    public let joinerSecret: Data
    /// welcome_secret: keys the Welcome's encrypted GroupInfo.
    public let welcomeSecret: Data
    /// sender_data_secret: keys PrivateMessage sender data (§6.3.2).
    public let senderDataSecret: Data
    /// encryption_secret: the root of the secret tree (§9).
    public let encryptionSecret: Data
    /// exporter_secret: base of MLS-Exporter (§8.5).
    public let exporterSecret: Data
    /// external_secret: seeds the external key pair (§8).
    public let externalSecret: Data
    /// confirmation_key: keys the confirmation tag (§8.2).
    public let confirmationKey: Data
    /// membership_key: keys PublicMessage membership tags (§6.2).
    public let membershipKey: Data
    /// resumption_psk: this epoch's resumption PSK (§8.6).
    public let resumptionPSK: Data
    /// epoch_authenticator: compared out of band to detect impersonation (§8.7).
    public let epochAuthenticator: Data
    /// init_secret for the next epoch.
    public let initSecret: Data

    /// Runs the full schedule from the previous epoch's init_secret (or a fresh random one for a new
    /// group), this epoch's commit_secret and psk_secret, and the new GroupContext.
    public init(
        provider: CipherSuiteProvider, initSecret previousInitSecret: Data, commitSecret: Data, pskSecret: Data?,
        groupContext: GroupContext
    ) {
        let schedule = KeySchedule(provider)
        let joiner = schedule.joinerSecret(
            initSecret: previousInitSecret, commitSecret: commitSecret, groupContext: groupContext)
        self.init(provider: provider, joinerSecret: joiner, pskSecret: pskSecret, groupContext: groupContext)
    }

    /// Runs the schedule from the joiner_secret onward, as a member joining by Welcome does.
    public init(provider: CipherSuiteProvider, joinerSecret: Data, pskSecret: Data?, groupContext: GroupContext) {
        let schedule = KeySchedule(provider)
        let member = schedule.memberSecret(joinerSecret: joinerSecret, pskSecret: pskSecret)
        let epochSecret = provider.expandWithLabelUnchecked(
            secret: member, label: "epoch", context: groupContext.tlsSerialized, length: provider.hashLength)
        func derive(_ label: String) -> Data { provider.deriveSecret(secret: epochSecret, label: label) }
        self.provider = provider
        self.joinerSecret = joinerSecret
        welcomeSecret = provider.deriveSecret(secret: member, label: "welcome")
        senderDataSecret = derive("sender data")
        encryptionSecret = derive("encryption")
        exporterSecret = derive("exporter")
        externalSecret = derive("external")
        confirmationKey = derive("confirm")
        membershipKey = derive("membership")
        resumptionPSK = derive("resumption")
        epochAuthenticator = derive("authentication")
        initSecret = derive("init")
    }

    /// Reloads secrets persisted by the group layer.
    public init(
        restoring provider: CipherSuiteProvider, joinerSecret: Data, welcomeSecret: Data, senderDataSecret: Data,
        encryptionSecret: Data, exporterSecret: Data, externalSecret: Data, confirmationKey: Data,
        membershipKey: Data, resumptionPSK: Data, epochAuthenticator: Data, initSecret: Data
    ) {
        self.provider = provider
        self.joinerSecret = joinerSecret
        self.welcomeSecret = welcomeSecret
        self.senderDataSecret = senderDataSecret
        self.encryptionSecret = encryptionSecret
        self.exporterSecret = exporterSecret
        self.externalSecret = externalSecret
        self.confirmationKey = confirmationKey
        self.membershipKey = membershipKey
        self.resumptionPSK = resumptionPSK
        self.epochAuthenticator = epochAuthenticator
        self.initSecret = initSecret
    }

    /// A copy without joiner_secret, welcome_secret and encryption_secret (left empty): once the
    /// Welcome is made and the epoch's secret tree exists they must be deleted (RFC 9420 §9.2), and a
    /// group state keeps only this form.
    func forgettingTransientSecrets() -> EpochSecrets {
        EpochSecrets(
            restoring: provider, joinerSecret: Data(), welcomeSecret: Data(), senderDataSecret: senderDataSecret,
            encryptionSecret: Data(), exporterSecret: exporterSecret, externalSecret: externalSecret,
            confirmationKey: confirmationKey, membershipKey: membershipKey, resumptionPSK: resumptionPSK,
            epochAuthenticator: epochAuthenticator, initSecret: initSecret)
    }

    /// What a member removed from the group keeps of its last epoch: only exporter_secret (the
    /// application may still derive that epoch's outer keys, MIP-03) and epoch_authenticator; every
    /// secret that could open, forge or advance the group is deleted (§9.2).
    func forgettingAllButExporter() -> EpochSecrets {
        EpochSecrets(
            restoring: provider, joinerSecret: Data(), welcomeSecret: Data(), senderDataSecret: Data(),
            encryptionSecret: Data(), exporterSecret: exporterSecret, externalSecret: Data(),
            confirmationKey: Data(), membershipKey: Data(), resumptionPSK: Data(),
            epochAuthenticator: epochAuthenticator, initSecret: Data())
    }

    /// MLS-Exporter(label, context, length) =
    /// ExpandWithLabel(DeriveSecret(exporter_secret, label), "exported", Hash(context), length) (§8.5).
    public func exporter<C: DataProtocol>(label: String, context: C, length: Int) throws(MLSCryptoError) -> Data {
        let derived = provider.deriveSecret(secret: exporterSecret, label: label)
        return try provider.expandWithLabel(
            secret: derived, label: "exported", context: provider.hash(context), length: length)
    }

    /// external_priv, external_pub = KEM.DeriveKeyPair(external_secret) (§8); its public half goes in
    /// the GroupInfo's external_pub extension.
    public func externalKeyPair() throws(MLSCryptoError) -> HPKEPrivateKey {
        try provider.deriveKeyPair(ikm: externalSecret)
    }

    /// welcome_key and welcome_nonce for this epoch's Welcome (§12.4.3.1).
    public var welcomeKey: WelcomeKey { WelcomeKey(provider: provider, welcomeSecret: welcomeSecret) }

    public var description: String { "EpochSecrets(redacted)" }
    public var debugDescription: String { description }
}

/// The AEAD key and nonce protecting a Welcome's encrypted GroupInfo (RFC 9420 §12.4.3.1):
/// ExpandWithLabel(welcome_secret, "key" / "nonce", "", Nk / Nn). Redacted when printed.
public struct WelcomeKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let key: Data
    public let nonce: Data

    public init(provider: CipherSuiteProvider, welcomeSecret: Data) {
        key = provider.expandWithLabelUnchecked(
            secret: welcomeSecret, label: "key", context: Data(), length: provider.aeadKeyLength)
        nonce = provider.expandWithLabelUnchecked(
            secret: welcomeSecret, label: "nonce", context: Data(), length: provider.aeadNonceLength)
    }

    public var description: String { "WelcomeKey(redacted)" }
    public var debugDescription: String { description }
}
