import Foundation

/// The TLS-style encoding of a whole group state, secrets included, behind a version byte.
///
/// Used only for local persistence (the Marmot layer encrypts the blob at rest); never sent.
/// Dictionaries are written sorted by key, so equal states encode to equal bytes.
enum GroupStateEncoding {
    /// The current format. Version 2 no longer holds joiner_secret, welcome_secret and
    /// encryption_secret (deleted once the secret tree exists, RFC 9420 §9.2), makes the private keys
    /// optional (deleted on removal), stamps retained epochs with the time they were retained and
    /// adds the newer configuration fields. Version 1 blobs still load: those secrets are dropped.
    /// Version 3 adds `acceptPrivateHandshakes`; version 2 blobs load with its default (true).
    static let version: UInt8 = 3
    /// The second format, still read.
    static let version2: UInt8 = 2
    /// The first format, still read.
    static let version1: UInt8 = 1
    /// The state of `MLSGroup.serializedApart()`: version 3 without the secret trees (current and
    /// retained), which are stored in their own blob; read only together with that blob.
    static let versionApart: UInt8 = 4
    /// The format of `MLSGroup.serializedRatchets()`.
    static let ratchetsVersion: UInt8 = 1
    /// Every format `MLSGroup(serialized:)` reads.
    static let readable: Set<UInt8> = [version1, version2, version]

    // MARK: Scalars

    static func write(_ value: Bool, to writer: inout TLSWriter) { writer.write(UInt8(value ? 1 : 0)) }

    static func readBool(_ reader: inout TLSReader) throws -> Bool {
        switch try reader.readUInt8() {
        case 0: false
        case 1: true
        case let other: throw TLSDecodingError.invalidValue("boolean \(other)")
        }
    }

    // MARK: Configuration

    static func write(_ configuration: GroupConfiguration, to writer: inout TLSWriter) {
        writer.write(configuration.outgoingHandshake.rawValue)
        write(configuration.acceptPublicHandshakes, to: &writer)
        switch configuration.padding {
        case .none:
            writer.write(UInt8(0))
            writer.write(UInt32(0))
        case .multiple(let block):
            writer.write(UInt8(1))
            writer.write(UInt32(clamping: block))
        case .minimumLength(let length):
            writer.write(UInt8(2))
            writer.write(UInt32(clamping: length))
        }
        writer.write(configuration.secretTree.outOfOrderTolerance)
        writer.write(configuration.secretTree.maxForwardDistance)
        writer.write(UInt32(clamping: configuration.maxPastEpochs))
        write(configuration.ratchetTreeInWelcome, to: &writer)
        write(configuration.commitBeforeApplication, to: &writer)
        writer.write(configuration.credentialRule.rawValue)
        writer.writeOptional(configuration.maxLeafLifetime) { w, value in w.write(value) }
        write(configuration.checkLifetimeOfTreeLeaves, to: &writer)
        // Version 2 onward.
        write(configuration.credentialsImmutable, to: &writer)
        writer.writeOptional(configuration.maxPastEpochAge) { w, value in w.write(value) }
        write(configuration.acceptNewMemberProposals, to: &writer)
        // Version 3 onward.
        write(configuration.acceptPrivateHandshakes, to: &writer)
    }

    static func readConfiguration(_ reader: inout TLSReader, version: UInt8) throws -> GroupConfiguration {
        guard let framing = GroupConfiguration.HandshakeFraming(rawValue: try reader.readUInt8()) else {
            throw TLSDecodingError.invalidValue("handshake framing")
        }
        let acceptPublic = try readBool(&reader)
        let paddingKind = try reader.readUInt8()
        let paddingValue = Int(try reader.readUInt32())
        let padding: PaddingPolicy
        switch paddingKind {
        case 0: padding = .none
        case 1: padding = .multiple(of: paddingValue)
        case 2: padding = .minimumLength(paddingValue)
        default: throw TLSDecodingError.invalidValue("padding policy \(paddingKind)")
        }
        let secretTree = SecretTree.Configuration(
            outOfOrderTolerance: try reader.readUInt32(), maxForwardDistance: try reader.readUInt32())
        var configuration = GroupConfiguration(
            outgoingHandshake: framing, acceptPublicHandshakes: acceptPublic, padding: padding, secretTree: secretTree,
            maxPastEpochs: Int(try reader.readUInt32()), ratchetTreeInWelcome: try readBool(&reader),
            commitBeforeApplication: try readBool(&reader),
            credentialRule: try readCredentialRule(&reader),
            maxLeafLifetime: try reader.readOptional { try $0.readUInt64() },
            checkLifetimeOfTreeLeaves: try readBool(&reader))
        if version >= 2 {
            configuration.credentialsImmutable = try readBool(&reader)
            configuration.maxPastEpochAge = try reader.readOptional { try $0.readUInt64() }
            configuration.acceptNewMemberProposals = try readBool(&reader)
        }
        if version >= 3 {
            configuration.acceptPrivateHandshakes = try readBool(&reader)
        }
        return configuration
    }

    static func readCredentialRule(_ reader: inout TLSReader) throws -> GroupConfiguration.CredentialRule {
        let raw = try reader.readUInt8()
        guard let rule = GroupConfiguration.CredentialRule(rawValue: raw) else {
            throw TLSDecodingError.invalidValue("credential rule \(raw)")
        }
        return rule
    }

    // MARK: Keys and secrets

    static func write(_ keys: TreePrivateKeys, to writer: inout TLSWriter) {
        writer.write(keys.leafIndex)
        writer.writeOpaque(keys.leafKey.rawBytesForStorage)
        writer.writeVector { w in
            for (node, key) in keys.pathKeys.sorted(by: { $0.key < $1.key }) {
                w.write(node)
                w.writeOpaque(key.rawBytesForStorage)
            }
        }
    }

    static func readTreePrivateKeys(_ reader: inout TLSReader) throws -> TreePrivateKeys {
        let leaf: LeafIndex = try reader.read()
        let leafKey = try HPKEPrivateKey(rawBytes: try reader.readOpaque())
        let entries = try reader.readVectorElements { r in
            (try r.read(NodeIndex.self), try HPKEPrivateKey(rawBytes: try r.readOpaque()))
        }
        var pathKeys: [NodeIndex: HPKEPrivateKey] = [:]
        for (node, key) in entries {
            guard pathKeys.updateValue(key, forKey: node) == nil else { throw TLSDecodingError.invalidValue("path key twice") }
        }
        return TreePrivateKeys(leafIndex: leaf, leafKey: leafKey, pathKeys: pathKeys)
    }

    /// The epoch secrets a group state keeps: never joiner_secret, welcome_secret or
    /// encryption_secret (§9.2).
    static func write(_ secrets: EpochSecrets, to writer: inout TLSWriter) {
        for secret in [
            secrets.senderDataSecret, secrets.exporterSecret, secrets.externalSecret, secrets.confirmationKey,
            secrets.membershipKey, secrets.resumptionPSK, secrets.epochAuthenticator, secrets.initSecret,
        ] {
            writer.writeOpaque(secret)
        }
    }

    /// Reads the secrets of `write` (version 2) or the eleven of version 1, whose joiner, welcome
    /// and encryption secrets are dropped. Secrets are Nh bytes; a removed member's deleted ones
    /// (`allowDeleted`) are empty.
    static func readEpochSecrets(
        _ reader: inout TLSReader, provider: CipherSuiteProvider, version: UInt8, allowDeleted: Bool
    ) throws -> EpochSecrets {
        var values: [Data] = []
        for _ in 0..<(version == version1 ? 11 : 8) {
            let secret = try reader.readOpaque()
            guard secret.count == provider.hashLength || (allowDeleted && secret.isEmpty) else {
                throw TLSDecodingError.invalidValue("epoch secret length")
            }
            values.append(secret)
        }
        if version == version1 { values = [values[2]] + values[4...] }
        return EpochSecrets(
            restoring: provider, joinerSecret: Data(), welcomeSecret: Data(), senderDataSecret: values[0],
            encryptionSecret: Data(), exporterSecret: values[1], externalSecret: values[2],
            confirmationKey: values[3], membershipKey: values[4], resumptionPSK: values[5],
            epochAuthenticator: values[6], initSecret: values[7])
    }

    // MARK: Tree

    /// The full node array, so the tree comes back with exactly its width.
    static func write(_ tree: RatchetTree, to writer: inout TLSWriter) {
        writer.writeVector { w in
            for node in tree.nodes { w.writeOptional(node) }
        }
    }

    static func readTree(_ reader: inout TLSReader, provider: CipherSuiteProvider) throws -> RatchetTree {
        let nodes = try reader.readVectorElements { try $0.readOptional(Node.self) }
        guard !nodes.isEmpty, nodes.count <= Int(UInt32.max) else {
            throw TLSDecodingError.invalidValue("ratchet tree width \(nodes.count)")
        }
        var trimmed = nodes[...]
        while let last = trimmed.last, last == nil { trimmed = trimmed.dropLast() }
        var tree = try RatchetTree(RatchetTreeNodes(nodes: Array(trimmed)), provider: provider)
        guard nodes.count >= tree.nodeCount, (nodes.count + 1).nonzeroBitCount == 1 else {
            throw TLSDecodingError.invalidValue("ratchet tree width \(nodes.count)")
        }
        if nodes.count != tree.nodeCount { tree.setNodes(nodes) }
        return tree
    }
}
