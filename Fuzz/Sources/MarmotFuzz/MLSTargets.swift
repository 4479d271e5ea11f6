import Foundation
import MLS

/// A two-member group (Alice created it and added Bob) and some of its messages, made once.
enum MLSFixture {
    struct Material: Sendable {
        var alice: MLSGroup
        var bob: MLSGroup
        var keyPackage: KeyPackage
        var welcome: Welcome
        var groupInfo: GroupInfo?
        var addCommit: MLSMessage
        /// Messages from Alice that Bob's `bob` state accepts: application data, a self-update commit.
        var forBob: [MLSMessage]
    }

    static let material: Material = {
        do {
            let capabilities = Capabilities.marmotDefault()
            let aliceSigner = SignaturePrivateKey.generate()
            var alice = try MLSGroup.create(
                groupID: GroupID(Data(repeating: 7, count: 32)), signer: aliceSigner,
                credential: .basic(identity: Data(repeating: 0xA1, count: 32)), capabilities: capabilities)
            let (keyPackage, keys) = try KeyPackage.create(identity: Data(repeating: 0xB0, count: 32))
            let add = try alice.commit(adding: [keyPackage])
            guard let welcome = add.welcome else { fatalError("no welcome for an add") }
            alice = add.newGroup
            let bob = try MLSGroup.join(welcome: welcome, keyPackage: keyPackage, privateMaterial: keys)
            var forBob: [MLSMessage] = []
            forBob.append(try alice.encrypt(Data("hello bob".utf8)))
            forBob.append(try alice.encrypt(Data(), authenticatedData: Data("aad".utf8)))
            var updating = alice
            forBob.append(try updating.selfUpdate().message)
            return Material(
                alice: alice, bob: bob, keyPackage: keyPackage, welcome: welcome, groupInfo: add.groupInfo,
                addCommit: add.message, forBob: forBob)
        } catch {
            fatalError("MLS fixture: \(error)")
        }
    }()
}

enum MLSTargets {
    static let all: [FuzzTarget] = [
        codec("mls-message", "MLSMessage (TLS codec, round trip)", MLSMessage.self) {
            let m = MLSFixture.material
            var messages = m.forBob + [m.addCommit, MLSMessage(.welcome(m.welcome)), MLSMessage(.keyPackage(m.keyPackage))]
            if let info = m.groupInfo { messages.append(MLSMessage(.groupInfo(info))) }
            return messages.map(\.tlsSerialized)
        },
        codec("key-package", "KeyPackage (TLS codec, round trip)", KeyPackage.self) {
            [MLSFixture.material.keyPackage.tlsSerialized]
        },
        codec("welcome", "Welcome (TLS codec, round trip)", Welcome.self) {
            [MLSFixture.material.welcome.tlsSerialized]
        },
        codec("group-info", "GroupInfo (TLS codec, round trip)", GroupInfo.self) {
            MLSFixture.material.groupInfo.map { [$0.tlsSerialized] } ?? []
        },
        codec("ratchet-tree", "RatchetTreeNodes (TLS codec, round trip, then RatchetTree validation)", RatchetTreeNodes.self) {
            [MLSFixture.material.alice.tree.ratchetTreeNodes.tlsSerialized, MLSFixture.material.bob.tree.ratchetTreeNodes.tlsSerialized]
        } extra: { nodes in
            _ = try? RatchetTree(nodes, provider: .mls128X25519)
        },
        FuzzTarget(
            name: "mls-process", summary: "MLSGroup.process(bytes:) on Bob's state in a live two-member group",
            seeds: { MLSFixture.material.forBob.map(\.tlsSerialized) },
            prepare: {
                // The seeds must really reach Bob's group, or the fuzzer only ever sees the framing checks.
                for message in MLSFixture.material.forBob {
                    var bob = MLSFixture.material.bob
                    do { _ = try bob.process(bytes: message.tlsSerialized) } catch { fatalError("mls-process seed rejected: \(error)") }
                }
            },
            run: { data in
                var bob = MLSFixture.material.bob
                let epoch = bob.epoch
                do {
                    _ = try bob.process(bytes: data)
                } catch {
                    // A rejected message must leave the group where it was.
                    if bob.epoch != epoch { FuzzFailure.fail("mls-process", "epoch moved on a rejected message: \(error)") }
                }
            }),
    ]

    /// A target for a TLS-decodable wire struct: decode, re-encode, decode again; both values and the
    /// re-encoding must agree (a canonical encoding is the only one we accept).
    static func codec<T: TLSCodable & Equatable & Sendable>(
        _ name: String, _ summary: String, _ type: T.Type, seeds: @escaping @Sendable () -> [Data],
        extra: @escaping @Sendable (T) -> Void = { _ in }
    ) -> FuzzTarget {
        FuzzTarget(name: name, summary: summary, seeds: seeds, run: { data in
            guard let value = try? T(tlsSerialized: data) else { return }
            let encoded = value.tlsSerialized
            if encoded != data {
                FuzzFailure.fail(name, "re-encoding differs from the accepted input (\(encoded.count) vs \(data.count) bytes)")
            }
            let again: T
            do { again = try T(tlsSerialized: encoded) } catch {
                FuzzFailure.fail(name, "our own encoding does not decode: \(error)")
            }
            if again != value { FuzzFailure.fail(name, "decode(encode(x)) != x") }
            extra(value)
        })
    }
}
