import Foundation
import Testing
@testable import MLS

/// The indexed credential rule gives, for every leaf of a tree, the error the pairwise rule of §7.3
/// gives (same kind, same member, same type), so a joiner's linear check refuses exactly what the
/// quadratic one did (issue 27).
struct CredentialCompatibilityTests {
    static let types: [CredentialType] = [.basic, .x509, CredentialType(rawValue: 0xF001)]

    /// The §7.3 rule walked member by member, as `LeafNodeValidator` does for a single leaf.
    static func pairwise(_ leaf: LeafNode, at index: LeafIndex, in tree: RatchetTree) -> LeafNodeValidationError? {
        for (other, member) in tree.leaves where other != index {
            if !member.capabilities.supports(.credentialType(leaf.credential.type)) {
                return .credentialUnsupportedByMember(leaf.credential.type, member: other)
            }
            if !leaf.capabilities.supports(.credentialType(member.credential.type)) {
                return .memberCredentialUnsupported(member.credential.type, member: other)
            }
        }
        return nil
    }

    static func credential(_ type: CredentialType, _ seed: Int) -> Credential {
        switch type {
        case .basic: .basic(identity: Data("member \(seed)".utf8))
        case .x509: .x509(certificates: [])
        default: .unknown(type: type, content: Data([UInt8(seed)]))
        }
    }

    @Test func theIndexedRuleAnswersAsThePairwiseRuleDoes() throws {
        var generator = SystemRandomNumberGenerator()
        let base = try Fixture.group(7)
        var refusals = 0
        for _ in 0..<300 {
            var tree = base.tree
            for (index, original) in base.tree.leaves {
                var leaf = original
                let type = Self.types.randomElement(using: &generator)!
                leaf.credential = Self.credential(type, Int(index.rawValue))
                leaf.capabilities.credentials = Self.types.filter { _ in Int.random(in: 0..<5, using: &generator) > 0 }
                try tree.update(leaf, at: index)
            }
            let index = CredentialCompatibility(tree)
            for (at, leaf) in tree.leaves {
                let expected = Self.pairwise(leaf, at: at, in: tree)
                do {
                    try index.check(leaf, at: at)
                    #expect(expected == nil, "leaf \(at): pairwise refuses with \(String(describing: expected))")
                } catch {
                    refusals += 1
                    #expect(error == expected, "leaf \(at)")
                }
            }
        }
        #expect(refusals > 100, "the random trees exercised refusals")
    }

    /// Kept up to date leaf by leaf (as a commit's Adds go in, filling blanks first), the index
    /// answers as one built afresh, for leaves in the tree and for a candidate not in it.
    @Test func anIndexKeptUpToDateAnswersAsAFreshOne() throws {
        var generator = SystemRandomNumberGenerator()
        let base = try Fixture.group(9)
        for _ in 0..<100 {
            var tree = base.tree
            var leaves: [LeafNode] = []
            for (index, original) in base.tree.leaves {
                var leaf = original
                leaf.credential = Self.credential(Self.types.randomElement(using: &generator)!, Int(index.rawValue))
                leaf.capabilities.credentials = [leaf.credential.type] + Self.types.filter { _ in Bool.random(using: &generator) }
                leaves.append(leaf)
            }
            // Start from a tree of three, with a blank in the middle, and add the rest.
            tree = RatchetTree(provider: Fixture.provider, firstLeaf: leaves[0])
            for leaf in leaves[1..<4] { _ = try tree.add(leaf) }
            try tree.remove(LeafIndex(2))
            var index = CredentialCompatibility(tree)
            for leaf in leaves[4...] {
                let at = try tree.add(leaf)
                index.insert(leaf, at: at, tree: tree)
                let fresh = CredentialCompatibility(tree)
                for (position, member) in tree.leaves {
                    #expect(Self.outcome { try index.check(member, at: position) } == Self.outcome { try fresh.check(member, at: position) })
                    #expect(Self.outcome { try index.check(member, at: position) } == Self.pairwise(member, at: position, in: tree))
                }
                let candidate = leaves[Int.random(in: 0..<leaves.count, using: &generator)]
                #expect(Self.outcome { try index.check(candidate, at: nil) } == Self.outcome { try fresh.check(candidate, at: nil) })
            }
        }
    }

    static func outcome(_ body: () throws -> Void) -> LeafNodeValidationError? {
        do {
            try body()
            return nil
        } catch {
            return error as? LeafNodeValidationError
        }
    }

    /// Through the joiner's whole-tree check: a member that does not support another's type is
    /// still refused, with the same leaf and member as before.
    @Test func aJoinedTreeWithAnUnsupportedTypeIsStillRefused() throws {
        var withX509 = Capabilities.marmotDefault()
        withX509.credentials.append(.x509)
        let group = try Fixture.group(4, capabilities: { $0 == 2 ? .marmotDefault() : withX509 })
        var tree = group.tree
        var leaf = group.members[3].leaf
        leaf.credential = .x509(certificates: [])
        try tree.update(leaf, at: LeafIndex(3))
        let validator = LeafNodeValidator(now: Fixture.now)
        #expect(throws: TreeLeafValidationError(leaf: LeafIndex(2), reason: .memberCredentialUnsupported(.x509, member: LeafIndex(3)))) {
            try validator.validateTreeLeaves(of: tree, groupContext: group.context, treeChecked: true)
        }
        // Without the tree's own checks, leaf 2 is reached first and refused the same way (the
        // per-leaf signature check of an unchecked tree is `LeafNodeValidationTests`' tampered leaf).
        #expect(throws: TreeLeafValidationError(leaf: LeafIndex(2), reason: .memberCredentialUnsupported(.x509, member: LeafIndex(3)))) {
            try validator.validateTreeLeaves(of: tree, groupContext: group.context)
        }
    }
}
