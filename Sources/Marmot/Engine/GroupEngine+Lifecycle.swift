import Foundation
import MLS
import Nostr

/// Founding and joining a group through the engine, as the client does (MIP-01 group creation,
/// MIP-02 Welcome).
extension GroupEngine {
    /// A new group at epoch 0 with only us, described by `metadata`, and the founding commit that
    /// adds `invitees` (adopt it with `confirm` once a Welcome is out; its Welcome is in `pending`).
    package static func found(
        rules: any GroupRules, keys: Keys, metadata: GroupMetadata, invitees: [KeyPackage],
        groupID: GroupID = GroupID(CipherSuiteProvider.mls128X25519.randomBytes(16))
    ) throws -> (engine: GroupEngine, founding: OwnCommit?) {
        let state = try rules.foundingState(groupID: groupID, keys: keys, metadata: metadata, invitees: invitees)
        var engine = GroupEngine(rules: rules, keys: keys, state: state)
        guard !invitees.isEmpty else { return (engine, nil) }
        let founding = try engine.commit(adding: invitees)
        return (engine, founding)
    }

    /// Joins from a Welcome sealed by `sender`, refused unless the version's join rule accepts it
    /// (v2: the GroupInfo signer must be an admin and every leaf's proof valid).
    package static func join(
        rules: any GroupRules, keys: Keys, welcome: Welcome, keyPackage: KeyPackage,
        privateMaterial: KeyPackagePrivateMaterial, sender: PublicKey
    ) throws -> GroupEngine {
        let joined = try MLSGroup.joinReportingSigner(
            welcome: welcome, keyPackage: keyPackage, privateMaterial: privateMaterial, configuration: rules.configuration)
        if let problem = rules.unacceptableJoin(joined.group, sender: sender, groupInfoSigner: joined.groupInfoSigner, me: keys.publicKey) {
            throw EngineError.unauthorized(problem)
        }
        return GroupEngine(rules: rules, keys: keys, state: joined.group)
    }
}
