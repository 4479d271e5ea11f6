import Foundation
@testable import MLS

/// Small hand-built wire structs for codec tests that must not depend on the shared vectors.
enum MessageSamples {
    static let groupID = GroupID(Data([0x67, 0x72, 0x70]))

    static func leafNode(source: LeafNodeSource = .keyPackage(lifetime: Lifetime(notBefore: 1, notAfter: 2))) -> LeafNode {
        LeafNode(
            encryptionKey: HPKEPublicKey(Data(repeating: 0xe1, count: 32)),
            signatureKey: SignaturePublicKey(Data(repeating: 0x51, count: 32)),
            credential: .basic(identity: Data(repeating: 0x1d, count: 32)),
            capabilities: Capabilities(
                versions: [.mls10], cipherSuites: [.mls128X25519AES128GCMSHA256Ed25519],
                extensions: [.lastResort, ExtensionType(rawValue: 0x0a0a)], proposals: [.selfRemove],
                credentials: [.basic]),
            source: source,
            extensions: [Extension(ApplicationIDExtension(applicationID: Data("app".utf8)))],
            signature: Data(repeating: 0x5a, count: 64))
    }

    static func keyPackage() -> KeyPackage {
        KeyPackage(
            cipherSuite: .mls128X25519AES128GCMSHA256Ed25519, initKey: HPKEPublicKey(Data(repeating: 0x11, count: 32)),
            leafNode: leafNode(), extensions: [Extension(LastResortExtension())],
            signature: Data(repeating: 0x5b, count: 64))
    }

    static func commit(withPath: Bool = true) -> Commit {
        let path = UpdatePath(
            leafNode: leafNode(source: .commit(parentHash: Data(repeating: 0x9a, count: 32))),
            nodes: [UpdatePathNode(
                encryptionKey: HPKEPublicKey(Data(repeating: 0x22, count: 32)),
                encryptedPathSecret: [HPKECiphertext(kemOutput: Data(repeating: 0x33, count: 32), ciphertext: Data(repeating: 0x44, count: 48))])])
        return Commit(
            proposals: [
                .proposal(.add(Add(keyPackage: keyPackage()))),
                .proposal(.remove(Remove(removed: LeafIndex(3)))),
                .reference(ProposalRef(Data(repeating: 0x77, count: 32))),
            ],
            path: withPath ? path : nil)
    }

    static func framedContent(sender: Sender = .member(leafIndex: LeafIndex(1)), body: FramedContent.Body) -> FramedContent {
        FramedContent(groupID: groupID, epoch: 7, sender: sender, authenticatedData: Data([0xad]), body: body)
    }

    static func publicCommitMessage() -> MLSMessage {
        MLSMessage(.publicMessage(PublicMessage(
            content: framedContent(body: .commit(commit())),
            auth: FramedContentAuthData(signature: Data(repeating: 0x5c, count: 64), confirmationTag: Data(repeating: 0xc7, count: 32)),
            membershipTag: Data(repeating: 0x3b, count: 32))))
    }

    static func privateMessage(contentType: ContentType = .application) -> PrivateMessage {
        PrivateMessage(
            groupID: groupID, epoch: 7, contentType: contentType, authenticatedData: Data(),
            encryptedSenderData: Data(repeating: 0xe5, count: 28), ciphertext: Data(repeating: 0xc1, count: 40))
    }

    static func groupContext() -> GroupContext {
        GroupContext(
            cipherSuite: .mls128X25519AES128GCMSHA256Ed25519, groupID: groupID, epoch: 7,
            treeHash: Data(repeating: 0x7a, count: 32), confirmedTranscriptHash: Data(repeating: 0xcc, count: 32),
            extensions: [Extension(RequiredCapabilities(extensionTypes: [.lastResort], proposalTypes: [.selfRemove], credentialTypes: [.basic]))])
    }

    static func groupInfo() -> GroupInfo {
        let tree = RatchetTreeNodes(nodes: [
            .leaf(leafNode()),
            .parent(ParentNode(encryptionKey: HPKEPublicKey(Data(repeating: 0x21, count: 32)), parentHash: Data(), unmergedLeaves: [LeafIndex(1)])),
            .leaf(leafNode(source: .update)),
        ])
        return GroupInfo(
            groupContext: groupContext(),
            extensions: [Extension(tree), Extension(ExternalPub(externalPub: HPKEPublicKey(Data(repeating: 0xe0, count: 32))))],
            confirmationTag: Data(repeating: 0xc7, count: 32), signer: LeafIndex(0), signature: Data(repeating: 0x5d, count: 64))
    }

    static func welcome() -> Welcome {
        Welcome(
            cipherSuite: .mls128X25519AES128GCMSHA256Ed25519,
            secrets: [EncryptedGroupSecrets(
                newMember: KeyPackageRef(Data(repeating: 0x4b, count: 32)),
                encryptedGroupSecrets: HPKECiphertext(kemOutput: Data(repeating: 0x01, count: 32), ciphertext: Data(repeating: 0x02, count: 80)))],
            encryptedGroupInfo: Data(repeating: 0x03, count: 100))
    }

    static func groupSecrets() -> GroupSecrets {
        GroupSecrets(
            joinerSecret: Data(repeating: 0x0a, count: 32), pathSecret: Data(repeating: 0x0b, count: 32),
            psks: [PreSharedKeyID(kind: .external(pskID: Data([1, 2])), nonce: Data(repeating: 0x0c, count: 32))])
    }

    /// One encoded sample of each top-level struct, for generic truncation and trailing-byte checks.
    static let encodedSamples: [(name: String, bytes: Data, decode: @Sendable (Data) throws -> Void)] = [
        ("KeyPackage", keyPackage().tlsSerialized, { _ = try KeyPackage(tlsSerialized: $0) }),
        ("LeafNode", leafNode().tlsSerialized, { _ = try LeafNode(tlsSerialized: $0) }),
        ("Commit", commit().tlsSerialized, { _ = try Commit(tlsSerialized: $0) }),
        ("MLSMessage(PublicMessage)", publicCommitMessage().tlsSerialized, { _ = try MLSMessage(tlsSerialized: $0) }),
        ("MLSMessage(PrivateMessage)", MLSMessage(.privateMessage(privateMessage())).tlsSerialized, { _ = try MLSMessage(tlsSerialized: $0) }),
        ("MLSMessage(GroupInfo)", MLSMessage(.groupInfo(groupInfo())).tlsSerialized, { _ = try MLSMessage(tlsSerialized: $0) }),
        ("MLSMessage(Welcome)", MLSMessage(.welcome(welcome())).tlsSerialized, { _ = try MLSMessage(tlsSerialized: $0) }),
        ("GroupSecrets", groupSecrets().tlsSerialized, { _ = try GroupSecrets(tlsSerialized: $0) }),
        ("SenderData", SenderData(leafIndex: LeafIndex(1), generation: 9, reuseGuard: 0xdeadbeef).tlsSerialized, { _ = try SenderData(tlsSerialized: $0) }),
    ]
}
