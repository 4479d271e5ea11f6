import Foundation
import Testing
@testable import MLS

/// A client for group tests: a signature key and fresh KeyPackages signed with it.
struct GroupTestClient {
    static let provider = CipherSuiteProvider.mls128X25519
    static let marmotExtension = ExtensionType.marmotGroupData
    static let capabilities = Capabilities(
        versions: [.mls10], cipherSuites: [.mls128X25519AES128GCMSHA256Ed25519],
        extensions: [.marmotGroupData, .lastResort], proposals: [.selfRemove], credentials: [.basic])

    let name: String
    var signer: SignaturePrivateKey

    init(_ name: String) {
        self.name = name
        signer = .generate()
    }

    var credential: Credential { .basic(identity: Data(name.utf8)) }

    /// A KeyPackage (RFC 9420 §10) with fresh init and encryption keys, and its private keys.
    func keyPackage(lifetime: Lifetime = .keyPackageDefault()) throws -> (KeyPackage, KeyPackagePrivateMaterial) {
        try KeyPackage.create(credential: credential, capabilities: Self.capabilities, lifetime: lifetime, signer: signer)
    }

    /// The group-context extensions Marmot uses: its group data and required_capabilities.
    static var marmotExtensions: [Extension] {
        [
            Extension(type: .marmotGroupData, data: Data("group data v1".utf8)),
            Extension(RequiredCapabilities(
                extensionTypes: [.marmotGroupData], proposalTypes: [.selfRemove], credentialTypes: [.basic])),
        ]
    }

    /// A new one-member group created by this client.
    func createGroup(configuration: GroupConfiguration = .default) throws -> MLSGroup {
        try MLSGroup.create(
            groupID: GroupID(Self.provider.randomBytes(32)), signer: signer, credential: credential,
            capabilities: Self.capabilities, groupContextExtensions: Self.marmotExtensions,
            configuration: configuration)
    }
}

/// Helpers to drive several members' groups in process.
enum GroupTest {
    /// Alice creates a group and adds `others` in one commit; everybody joins from the Welcome.
    static func makeGroup(_ names: [String]) throws -> [MLSGroup] {
        let clients = names.map(GroupTestClient.init)
        var creator = try clients[0].createGroup()
        var packages: [(KeyPackage, KeyPackagePrivateMaterial)] = []
        for client in clients.dropFirst() { packages.append(try client.keyPackage()) }
        guard !packages.isEmpty else { return [creator] }
        let pending = try creator.commit(adding: packages.map(\.0))
        let welcome = try #require(pending.welcome)
        creator = pending.newGroup
        var groups = [creator]
        for (keyPackage, keys) in packages {
            groups.append(try MLSGroup.join(welcome: welcome, keyPackage: keyPackage, privateMaterial: keys))
        }
        return groups
    }

    /// Every group is in the same epoch with the same authenticator and tree.
    static func expectInSync(_ groups: [MLSGroup], sourceLocation: SourceLocation = #_sourceLocation) {
        guard let first = groups.first else { return }
        for group in groups.dropFirst() {
            #expect(group.epoch == first.epoch, sourceLocation: sourceLocation)
            #expect(group.epochAuthenticator == first.epochAuthenticator, sourceLocation: sourceLocation)
            #expect(group.tree.treeHash() == first.tree.treeHash(), sourceLocation: sourceLocation)
            #expect(group.groupContext == first.groupContext, sourceLocation: sourceLocation)
        }
    }

    /// `sender` encrypts `text`, every other group decrypts it.
    static func send(
        _ text: String, from sender: Int, in groups: inout [MLSGroup], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let message = try groups[sender].encrypt(Data(text.utf8))
        for index in groups.indices where index != sender {
            let result = try groups[index].process(message)
            guard case .application(let app) = result else {
                Issue.record("expected application data, got \(result)", sourceLocation: sourceLocation)
                continue
            }
            #expect(app.data == Data(text.utf8), sourceLocation: sourceLocation)
            #expect(app.sender == groups[sender].ownLeafIndex, sourceLocation: sourceLocation)
        }
    }

    /// `committer` commits (via `body`), publishes, merges; the others process the commit.
    @discardableResult
    static func commit(
        by committer: Int, in groups: inout [MLSGroup], sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (inout MLSGroup) throws -> PendingCommit
    ) throws -> (PendingCommit, [ProcessedMessage]) {
        let pending = try body(&groups[committer])
        var results: [ProcessedMessage] = []
        for index in groups.indices where index != committer {
            results.append(try groups[index].process(pending.message))
        }
        groups[committer] = pending.newGroup
        return (pending, results)
    }
}
