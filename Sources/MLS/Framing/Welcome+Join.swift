import Foundation

/// Joining a group from a Welcome (RFC 9420 §12.4.3.1).
extension Welcome {
    static let groupSecretsLabel = "Welcome"

    /// Opens and verifies this Welcome for one of our KeyPackages.
    ///
    /// Finds our entry by KeyPackageRef, decrypts the GroupSecrets with our init key, derives
    /// psk_secret (every PSK must be known to `psk`), opens the GroupInfo with the welcome key and
    /// nonce, checks its signature under the key `signatureKey` returns for it (the signer leaf's
    /// key, from the ratchet tree the GroupInfo carries or the caller holds), runs the key schedule
    /// and checks the confirmation tag. Tree validation and placing the path secret are left to the
    /// group layer.
    public func join(
        keyPackage: KeyPackage, initPrivateKey: HPKEPrivateKey, psk: (PreSharedKeyID) -> Data? = { _ in nil },
        signatureKey: (GroupInfo) -> SignaturePublicKey?
    ) throws(WelcomeError) -> JoinedEpoch {
        let provider = try Self.provider(for: keyPackage.cipherSuite)
        guard cipherSuite == keyPackage.cipherSuite else {
            throw .cipherSuiteMismatch(expected: keyPackage.cipherSuite, actual: cipherSuite)
        }
        let ref = provider.keyPackageRef(encodedKeyPackage: keyPackage.tlsSerialized)
        let groupSecrets = try decryptGroupSecrets(ref: ref, initPrivateKey: initPrivateKey, provider: provider)
        let pskSecret = try Self.pskSecret(for: groupSecrets.psks, lookup: psk, provider: provider)
        let groupInfo = try decryptGroupInfo(joinerSecret: groupSecrets.joinerSecret, pskSecret: pskSecret, provider: provider)
        let context = groupInfo.groupContext
        guard context.cipherSuite == keyPackage.cipherSuite else {
            throw .cipherSuiteMismatch(expected: keyPackage.cipherSuite, actual: context.cipherSuite)
        }

        guard let signer = signatureKey(groupInfo) else { throw .unknownSigner(groupInfo.signer) }
        guard groupInfo.verifySignature(signer, provider: provider) else { throw .badGroupInfoSignature }

        if groupSecrets.psks.contains(where: \.isReinitOrBranch), context.epoch != 1 {
            throw .resumptionEpochNotOne(context.epoch)
        }

        let epochSecrets = EpochSecrets(
            provider: provider, joinerSecret: groupSecrets.joinerSecret, pskSecret: pskSecret, groupContext: context)
        guard TranscriptHashes.verifyConfirmationTag(
            groupInfo.confirmationTag, confirmationKey: epochSecrets.confirmationKey,
            confirmed: context.confirmedTranscriptHash, suite: provider)
        else { throw .badConfirmationTag }
        let transcript = TranscriptHashes(
            confirmed: context.confirmedTranscriptHash, confirmationTag: groupInfo.confirmationTag, suite: provider)
        return JoinedEpoch(
            groupInfo: groupInfo, groupSecrets: groupSecrets, keyPackageRef: ref, epochSecrets: epochSecrets,
            transcriptHashes: transcript)
    }

    /// `join` with the signer's key already known and external PSKs given by psk_id.
    public func join(
        keyPackage: KeyPackage, initPrivateKey: HPKEPrivateKey, externalPSKs: [Data: Data] = [:],
        signerKey: SignaturePublicKey
    ) throws(WelcomeError) -> JoinedEpoch {
        try join(
            keyPackage: keyPackage, initPrivateKey: initPrivateKey,
            psk: { id in
                if case .external(let pskID) = id.kind { externalPSKs[pskID] } else { nil }
            },
            signatureKey: { _ in signerKey })
    }

    /// Our GroupSecrets: DecryptWithLabel(init_key_priv, "Welcome", encrypted_group_info, .).
    public func decryptGroupSecrets(
        ref: KeyPackageRef, initPrivateKey: HPKEPrivateKey, provider: CipherSuiteProvider
    ) throws(WelcomeError) -> GroupSecrets {
        guard let entry = secrets(for: ref) else { throw .noSecretsForKeyPackage(ref) }
        let plaintext: Data
        do {
            plaintext = try provider.decryptWithLabel(
                initPrivateKey, label: Self.groupSecretsLabel, context: encryptedGroupInfo,
                kemOutput: entry.encryptedGroupSecrets.kemOutput, ciphertext: entry.encryptedGroupSecrets.ciphertext)
        } catch {
            throw .groupSecretsDecryptionFailed
        }
        guard let secrets = try? GroupSecrets(tlsSerialized: plaintext) else { throw .malformedGroupSecrets }
        return secrets
    }

    /// The GroupInfo, opened with the welcome key and nonce of joiner_secret and psk_secret (empty AAD).
    public func decryptGroupInfo(
        joinerSecret: Data, pskSecret: Data?, provider: CipherSuiteProvider
    ) throws(WelcomeError) -> GroupInfo {
        let welcomeSecret = KeySchedule(provider).welcomeSecret(joinerSecret: joinerSecret, pskSecret: pskSecret)
        let welcomeKey = WelcomeKey(provider: provider, welcomeSecret: welcomeSecret)
        let plaintext: Data
        do {
            plaintext = try provider.open(key: welcomeKey.key, nonce: welcomeKey.nonce, aad: Data(), ciphertext: encryptedGroupInfo)
        } catch {
            throw .groupInfoDecryptionFailed
        }
        guard let groupInfo = try? GroupInfo(tlsSerialized: plaintext) else { throw .malformedGroupInfo }
        return groupInfo
    }

    /// psk_secret for the GroupSecrets' PSKs (§8.4), nil when there are none; each must be known,
    /// have a KDF.Nh-byte nonce, and at most one may be a reinit or branch resumption PSK.
    static func pskSecret(
        for ids: [PreSharedKeyID], lookup: (PreSharedKeyID) -> Data?, provider: CipherSuiteProvider
    ) throws(WelcomeError) -> Data? {
        guard !ids.isEmpty else { return nil }
        guard ids.filter(\.isReinitOrBranch).count <= 1 else { throw .multipleReinitOrBranchPSKs }
        var entries: [(id: PreSharedKeyID, psk: Data)] = []
        for id in ids {
            guard id.nonce.count == provider.hashLength else { throw .invalidPSKNonce(id) }
            guard let psk = lookup(id) else { throw .missingPSK(id) }
            entries.append((id, psk))
        }
        do {
            return try KeySchedule(provider).pskSecret(entries)
        } catch {
            throw .tooManyPSKs(ids.count)
        }
    }

    static func provider(for suite: CipherSuite) throws(WelcomeError) -> CipherSuiteProvider {
        do {
            return try CipherSuiteProvider(suite)
        } catch {
            throw .crypto(error)
        }
    }
}

extension PreSharedKeyID {
    /// A resumption PSK that re-initializes or branches a group (§8.6).
    var isReinitOrBranch: Bool {
        if case .resumption(let usage, _, _) = kind { usage == .reinit || usage == .branch } else { false }
    }
}
