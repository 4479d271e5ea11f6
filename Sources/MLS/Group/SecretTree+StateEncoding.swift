import Foundation

/// Persisting a secret tree exactly: unconsumed node secrets, each leaf's ratchets with their next
/// generation and the skipped keys still kept (RFC 9420 §9.2). Deleted keys stay deleted.
extension GroupStateEncoding {
    static func write(_ tree: SecretTree, to writer: inout TLSWriter) {
        writer.write(tree.size.leafCount)
        writer.write(tree.configuration.outOfOrderTolerance)
        writer.write(tree.configuration.maxForwardDistance)
        writer.writeVector { w in
            for (node, secret) in tree.nodeSecrets.sorted(by: { $0.key < $1.key }) {
                w.write(node)
                w.writeOpaque(secret)
            }
        }
        writer.writeVector { w in
            for (leaf, ratchets) in tree.ratchets.sorted(by: { $0.key < $1.key }) {
                w.write(leaf)
                write(ratchets.handshake, to: &w)
                write(ratchets.application, to: &w)
            }
        }
    }

    static func readSecretTree(_ reader: inout TLSReader, provider: CipherSuiteProvider) throws -> SecretTree {
        let size = try TreeSize(leafCount: try reader.readUInt32())
        let configuration = SecretTree.Configuration(
            outOfOrderTolerance: try reader.readUInt32(), maxForwardDistance: try reader.readUInt32())
        var tree = SecretTree(provider: provider, encryptionSecret: Data(), size: size, configuration: configuration)
        tree.nodeSecrets = [:]
        for (node, secret) in try reader.readVectorElements({ r in (try r.read(NodeIndex.self), try r.readOpaque()) }) {
            guard size.contains(node), tree.nodeSecrets.updateValue(secret, forKey: node) == nil else {
                throw TLSDecodingError.invalidValue("secret tree node \(node)")
            }
        }
        let leaves = try reader.readVectorElements { r in
            (try r.read(LeafIndex.self), try readRatchet(&r), try readRatchet(&r))
        }
        for (leaf, handshake, application) in leaves {
            guard size.contains(leaf), tree.ratchets[leaf] == nil else {
                throw TLSDecodingError.invalidValue("secret tree leaf \(leaf)")
            }
            tree.ratchets[leaf] = SecretTree.LeafRatchets(handshake: handshake, application: application)
        }
        return tree
    }

    static func write(_ ratchet: HashRatchet, to writer: inout TLSWriter) {
        writer.writeOptional(ratchet.secret) { w, secret in w.writeOpaque(secret) }
        writer.write(ratchet.next)
        writer.writeVector { w in
            for (generation, key) in ratchet.skipped.sorted(by: { $0.key < $1.key }) {
                w.write(generation)
                w.writeOpaque(key.key)
                w.writeOpaque(key.nonce)
            }
        }
    }

    static func readRatchet(_ reader: inout TLSReader) throws -> HashRatchet {
        var ratchet = HashRatchet(secret: Data())
        ratchet.secret = try reader.readOptional { try $0.readOpaque() }
        ratchet.next = try reader.readUInt64()
        guard ratchet.next <= UInt64(UInt32.max) + 1 else { throw TLSDecodingError.invalidValue("ratchet generation") }
        let skipped = try reader.readVectorElements { r in
            MessageKey(generation: try r.readUInt32(), key: try r.readOpaque(), nonce: try r.readOpaque())
        }
        for key in skipped {
            guard UInt64(key.generation) < ratchet.next, ratchet.skipped.updateValue(key, forKey: key.generation) == nil
            else { throw TLSDecodingError.invalidValue("skipped generation \(key.generation)") }
        }
        return ratchet
    }

    /// The secret trees of `MLSGroup.serializedRatchets()`: the current one, which must be of
    /// `epoch`, and the retained epochs' by epoch.
    static func readRatchets(
        _ data: Data, provider: CipherSuiteProvider, epoch: UInt64
    ) throws -> (current: SecretTree, past: [UInt64: SecretTree]) {
        var r = TLSReader(data)
        guard try r.readUInt8() == ratchetsVersion else { throw TLSDecodingError.invalidValue("ratchets version") }
        guard try r.readUInt64() == epoch else { throw TLSDecodingError.invalidValue("ratchets of another epoch") }
        let current = try readSecretTree(&r, provider: provider)
        var past: [UInt64: SecretTree] = [:]
        for (pastEpoch, tree) in try r.readVectorElements({ v in (try v.readUInt64(), try readSecretTree(&v, provider: provider)) }) {
            guard past.updateValue(tree, forKey: pastEpoch) == nil else {
                throw TLSDecodingError.invalidValue("ratchets of epoch \(pastEpoch) twice")
            }
        }
        try r.finish()
        return (current, past)
    }
}
