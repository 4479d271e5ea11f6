import Foundation
import MLS

/// Costs of the MLS group state machine (RFC 9420 §11, §12.4) for a two-member group: creating a
/// group and adding a member who joins by Welcome, a self-update commit created and processed, and
/// a 100-byte application message encrypted and decrypted.
enum MLSGroupBench {
    static let provider = CipherSuiteProvider.mls128X25519
    static let capabilities = Capabilities(
        versions: [.mls10], cipherSuites: [.mls128X25519AES128GCMSHA256Ed25519], extensions: [],
        proposals: [.selfRemove], credentials: [.basic])

    static func run() {
        Bench.section("MLS group (suite 0x0001, 2 members)")
        do {
            try Bench.measure("create group + add member + join (Welcome)", iterations: 30) {
                _ = try twoMemberGroup()
            }
            var (alice, bob) = try twoMemberGroup()
            try Bench.measure("self-update commit: create + process + merge", iterations: 30) {
                let pending = try alice.selfUpdate()
                _ = try bob.process(pending.message)
                alice = pending.newGroup
            }
            let plaintext = Data(repeating: 0x61, count: 100)
            try Bench.measure("application message encrypt + decrypt (100 B)", iterations: 1_000) {
                let message = try alice.encrypt(plaintext)
                _ = try bob.process(message)
            }
            try Bench.measure("group state serialize + restore", iterations: 200) {
                _ = try MLSGroup(serialized: bob.serialized())
            }
        } catch {
            print("MLS group bench failed: \(error)")
        }
    }

    static func twoMemberGroup() throws -> (MLSGroup, MLSGroup) {
        let aliceSigner = provider.generateSignatureKey()
        var alice = try MLSGroup.create(
            groupID: GroupID(provider.randomBytes(32)), signer: aliceSigner, credential: .basic(identity: Data("a".utf8)),
            capabilities: capabilities)
        let (bobPackage, bobKeys) = try keyPackage(name: "b")
        let pending = try alice.commit(adding: [bobPackage])
        guard let welcome = pending.welcome else { throw GroupError.invalidWelcome("no Welcome") }
        let bob = try MLSGroup.join(welcome: welcome, keyPackage: bobPackage, privateMaterial: bobKeys)
        return (pending.newGroup, bob)
    }

    static func keyPackage(name: String) throws -> (KeyPackage, KeyPackagePrivateMaterial) {
        try KeyPackage.create(credential: .basic(identity: Data(name.utf8)), capabilities: capabilities)
    }
}
