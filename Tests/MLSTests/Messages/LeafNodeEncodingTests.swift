import Foundation
import Testing
@testable import MLS

/// A decoded LeafNode is written back as the bytes it came from, and only while it is unchanged:
/// any change to a field is encoded from the fields, and equality and hashing ignore how a leaf was
/// made (issue 27).
struct LeafNodeEncodingTests {
    @Test func decodedLeafEncodesAsItWasReadUntilAFieldChanges() throws {
        let built = try TreeTestMember("alice").leaf
        let bytes = built.tlsSerialized
        let decoded = try LeafNode(tlsSerialized: bytes)
        #expect(decoded == built)
        #expect(decoded.hashValue == built.hashValue)
        #expect(decoded.tlsSerialized == bytes)
        // Inside a tree, as a stored state holds it.
        let tree = RatchetTree(provider: TreeTestMember.provider, firstLeaf: decoded)
        let builtTree = RatchetTree(provider: TreeTestMember.provider, firstLeaf: built)
        #expect(tree.ratchetTreeNodes.tlsSerialized == builtTree.ratchetTreeNodes.tlsSerialized)

        let newKey = HPKEPrivateKey.generate().publicKey
        var changed = decoded
        changed.encryptionKey = newKey
        var expected = built
        expected.encryptionKey = newKey
        #expect(changed.tlsSerialized == expected.tlsSerialized)
        #expect(changed.tlsSerialized != bytes)

        var nested = decoded
        nested.capabilities.credentials.append(CredentialType(rawValue: 0xf000))
        var nestedExpected = built
        nestedExpected.capabilities.credentials.append(CredentialType(rawValue: 0xf000))
        #expect(nested.tlsSerialized == nestedExpected.tlsSerialized)

        var resigned = decoded
        resigned.signature = Data(repeating: 7, count: 64)
        #expect(try LeafNode(tlsSerialized: resigned.tlsSerialized).signature == Data(repeating: 7, count: 64))
    }
}
