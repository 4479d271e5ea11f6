import Foundation
import Testing
@testable import MLS

/// Groups shaped like Marmot v2 ones: members support app_data_dictionary and AppDataUpdate, the
/// GroupContext requires them and holds a dictionary (draft-ietf-mls-extensions; MDK 0.9.x).
enum AppDataFixture {
    static let capabilities = Capabilities(
        versions: [.mls10], cipherSuites: [.mls128X25519AES128GCMSHA256Ed25519], extensions: [.appDataDictionary],
        proposals: [.appDataUpdate, .selfRemove], credentials: [.basic])

    static let required = Extension(RequiredCapabilities(
        extensionTypes: [.appDataDictionary], proposalTypes: [.appDataUpdate, .selfRemove], credentialTypes: []))

    /// Profile (0x8001, empty name and description) and lifecycle (0x800c, active).
    static let initialComponents = [
        ComponentData(componentID: 0x8001, data: Data([0, 0])), ComponentData(componentID: 0x800c, data: Data([0])),
    ]

    static func extensions(_ components: [ComponentData] = initialComponents) throws -> [Extension] {
        [required, Extension(try AppDataDictionary(components))]
    }

    /// A 32-byte basic credential, as Marmot's credential rule wants.
    static func credential(_ name: String) -> Credential {
        .basic(identity: Data((name + String(repeating: ".", count: 32)).utf8.prefix(32)))
    }

    /// `names[0]` creates the group and adds the others; everybody joins from the Welcome.
    static func makeGroup(
        _ names: [String], configuration: GroupConfiguration = .marmotV2, leafExtensions: [Extension] = []
    ) throws -> [MLSGroup] {
        let signer = SignaturePrivateKey.generate()
        var creator = try MLSGroup.create(
            groupID: GroupID(GroupTestClient.provider.randomBytes(32)), signer: signer, credential: credential(names[0]),
            capabilities: capabilities, leafExtensions: leafExtensions, groupContextExtensions: try extensions(),
            configuration: configuration)
        var packages: [(KeyPackage, KeyPackagePrivateMaterial)] = []
        for name in names.dropFirst() {
            packages.append(try KeyPackage.create(
                credential: credential(name), capabilities: capabilities, leafExtensions: leafExtensions,
                signer: .generate()))
        }
        let pending = try creator.commit(adding: packages.map(\.0))
        let welcome = try #require(pending.welcome)
        creator = pending.newGroup
        var groups = [creator]
        for (keyPackage, keys) in packages {
            groups.append(try MLSGroup.join(
                welcome: welcome, keyPackage: keyPackage, privateMaterial: keys, configuration: configuration))
        }
        return groups
    }

    static func dictionary(of group: MLSGroup) throws -> AppDataDictionary {
        try #require(try group.extensions.payload(AppDataDictionary.self))
    }

    /// Same epoch, GroupContext, tree, epoch authenticator and exporter output everywhere.
    static func expectInSync(_ groups: [MLSGroup], sourceLocation: SourceLocation = #_sourceLocation) throws {
        GroupTest.expectInSync(groups, sourceLocation: sourceLocation)
        let exports = try groups.map { try $0.exporter(label: "marmot", context: Data("group-event".utf8), length: 32) }
        #expect(Set(exports).count == 1, sourceLocation: sourceLocation)
    }
}

extension HostileMember {
    /// A commit of `proposals` that claims `newExtensions` for the next GroupContext, with a correct
    /// confirmation tag and signature, built without any proposal-list check: exactly what a member
    /// would send that applies (or ignores) AppDataUpdates by rules of its own choosing. With
    /// `path`, a genuine UpdatePath for the member's own leaf; the proposals must not change the tree.
    static func commit(
        _ proposals: [ProposalOrRef], newExtensions: [Extension], path: Bool = false, by group: inout MLSGroup,
        wireFormat: WireFormat = .publicMessage
    ) throws -> MLSMessage {
        let provisional = try group.provisionalContext(extensions: newExtensions)
        var tree = group.tree
        var commitSecret = group.provider.zeroSecret
        var updatePath: UpdatePath?
        if path {
            let leaf = try #require(group.ownLeafNode)
            let created = try group.tree.createUpdatePath(
                from: group.ownLeafIndex, leaf: LeafNodeTemplate(leaf), signer: group.signer, groupContext: provisional)
            tree = created.tree
            commitSecret = created.commitSecret
            updatePath = created.updatePath
        }
        var authenticated = try group.sign(
            group.framedContent(.commit(Commit(proposals: proposals, path: updatePath)), authenticatedData: Data()),
            wireFormat: wireFormat)
        let next = try group.nextEpoch(
            commit: authenticated, context: provisional, tree: tree, commitSecret: commitSecret, pskSecret: nil)
        authenticated.auth.confirmationTag = next.confirmationTag
        return try group.protect(authenticated)
    }
}
