import Foundation
import Testing
import TestSupport
@testable import MLS

/// `tree-math.json`: one case per tree size, each relation checked for every node.
struct TreeMathVector: Decodable, Sendable, CustomTestStringConvertible {
    let n_leaves: UInt32
    let n_nodes: UInt32
    let root: UInt32
    let left: [UInt32?]
    let right: [UInt32?]
    let parent: [UInt32?]
    let sibling: [UInt32?]

    var testDescription: String { "\(n_leaves) leaves" }

    static let all: [TreeMathVector] = {
        let cases = (try? SharedFixtures.loadJSON([TreeMathVector].self, "mls/tree-math.json")) ?? nil
        SharedFixtures.report("mls/tree-math.json", ran: cases?.count ?? 0, skipped: 0, reason: "none")
        return cases ?? []
    }()
}

struct TreeMathTests {
    @Test func vectorFileLoads() throws {
        guard SharedFixtures.shouldRun else { return }
        #expect(TreeMathVector.all.count == 10)
    }

    @Test(arguments: TreeMathVector.all)
    func matchesVector(_ v: TreeMathVector) throws {
        let size = try TreeSize(leafCount: v.n_leaves)
        #expect(size.nodeWidth == v.n_nodes)
        #expect(size.root.rawValue == v.root)
        for i in 0..<v.n_nodes {
            let node = NodeIndex(i)
            let at = Int(i)
            #expect(node.left?.rawValue == v.left[at], "left(\(i))")
            #expect(node.right?.rawValue == v.right[at], "right(\(i))")
            #expect(size.parent(of: node)?.rawValue == v.parent[at], "parent(\(i))")
            #expect(size.sibling(of: node)?.rawValue == v.sibling[at], "sibling(\(i))")
        }
    }

    @Test func pathsInEightLeafTree() throws {
        let size = try TreeSize(leafCount: 8)
        let leaf2 = LeafIndex(2).nodeIndex
        #expect(leaf2 == NodeIndex(4))
        #expect(size.directPath(of: leaf2).map(\.rawValue) == [5, 3, 7])
        #expect(size.copath(of: leaf2).map(\.rawValue) == [6, 1, 11])
        #expect(size.directPath(of: size.root).isEmpty)
        #expect(size.copath(of: size.root).isEmpty)
        #expect(size.commonAncestor(NodeIndex(0), NodeIndex(6)) == NodeIndex(3))
        #expect(size.commonAncestor(NodeIndex(4), NodeIndex(14)) == NodeIndex(7))
        #expect(size.commonAncestor(NodeIndex(5), NodeIndex(4)) == NodeIndex(5))
        #expect(size.commonAncestor(NodeIndex(8), NodeIndex(8)) == NodeIndex(8))
    }

    @Test func nonFullTreeUsesFullTreeView() throws {
        // Five leaves live in the eight-leaf full tree (RFC 9420 §4.1.2, Figure 11).
        let size = try TreeSize(leafCount: 5)
        #expect(size.nodeWidth == 9)
        #expect(size.root == NodeIndex(7))
        #expect(size.directPath(of: NodeIndex(8)).map(\.rawValue) == [9, 11, 7])
        #expect(size.copath(of: NodeIndex(8)).map(\.rawValue) == [10, 13, 3])
        #expect(!size.contains(NodeIndex(9)))
        #expect(size.contains(LeafIndex(4)) && !size.contains(LeafIndex(5)))
    }

    @Test func largestTreeDoesNotOverflow() throws {
        let size = try TreeSize(leafCount: TreeSize.maxLeafCount)
        #expect(size.nodeWidth == UInt32.max)
        #expect(size.root == NodeIndex(UInt32(1) << 31 - 1))
        let last = LeafIndex(TreeSize.maxLeafCount - 1).nodeIndex
        #expect(size.directPath(of: last).count == 31)
        #expect(size.directPath(of: last).last == size.root)
        #expect(size.parent(of: NodeIndex(UInt32.max)) == nil)
    }

    @Test func rejectsImpossibleSizes() {
        #expect(throws: TreeMathError.invalidLeafCount(0)) { try TreeSize(leafCount: 0) }
        #expect(throws: TreeMathError.invalidLeafCount(TreeSize.maxLeafCount + 1)) {
            try TreeSize(leafCount: TreeSize.maxLeafCount + 1)
        }
    }
}
