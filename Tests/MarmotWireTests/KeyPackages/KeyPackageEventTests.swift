import Foundation
import MLS
import Nostr
import Testing
@testable import MarmotWire

@Suite struct KeyPackageEventBuildTests {
    let keys = Keys.generate()
    let now: Int64 = 1_800_000_000

    @Test func buildsBothKindsInMDKTagOrder() throws {
        let made = try TestKeyPackages.make(identity: keys.publicKey, now: now)
        let relays = [try RelayURL("wss://relay.example.com"), try RelayURL("wss://relay2.example.com/")]
        let dTag = KeyPackageDTag.random()
        let published = try KeyPackageEvent.build(keyPackage: made.keyPackage, relays: relays, keys: keys, dTag: dTag,
                                                  createdAt: now)
        let refHex = Hex.encode(published.ref.bytes)
        #expect(published.addressable.kind == Kind(30443) && published.legacy.kind == Kind(443))
        #expect(published.addressable.tags.map(\.fields) == [
            ["d", dTag.value], ["mls_protocol_version", "1.0"], ["mls_ciphersuite", "0x0001"],
            ["mls_extensions", "0x000a", "0xf2ee"], ["mls_proposals", "0x000a"],
            ["relays", "wss://relay.example.com", "wss://relay2.example.com/"], ["i", refHex],
            ["client", KeyPackageEvent.defaultClient], ["encoding", "base64"],
        ])
        #expect(published.legacy.tags == Array(published.addressable.tags.dropFirst()))
        #expect(published.addressable.content == published.legacy.content)
        #expect(Base64.decode(published.addressable.content) == Array(made.keyPackage.tlsSerialized))
        #expect(published.addressable.isValid && published.legacy.isValid)

        let protected = KeyPackageEvent.tags(ref: published.ref, relays: relays, dTag: nil, protected: true, client: nil)
        #expect(protected.map { $0.name ?? "" } == ["mls_protocol_version", "mls_ciphersuite", "mls_extensions",
                                                    "mls_proposals", "relays", "i", "-", "encoding"])

        for event in [published.addressable, published.legacy] {
            let peer = try PeerKeyPackage(event: event, now: now)
            #expect(peer.ref == published.ref && peer.author == keys.publicKey && peer.relays == relays)
            #expect(peer.eventID == event.id && peer.keyPackage == made.keyPackage)
        }
        let rotated = try KeyPackageEvent.build(
            keyPackage: try TestKeyPackages.make(identity: keys.publicKey, now: now).keyPackage, relays: relays,
            keys: keys, dTag: published.dTag, createdAt: now + 1)
        #expect(rotated.addressable.identifier == published.addressable.identifier)
        #expect(rotated.ref != published.ref)
    }

    @Test func refusesForeignIdentityAndNoRelays() throws {
        let made = try TestKeyPackages.make(identity: Keys.generate().publicKey, now: now)
        #expect(throws: KeyPackageEventError.self) {
            try KeyPackageEvent.build(keyPackage: made.keyPackage, relays: [try RelayURL("wss://r.example")], keys: keys)
        }
        let mine = try TestKeyPackages.make(identity: keys.publicKey, now: now)
        #expect(throws: KeyPackageEventError.noRelays) { try KeyPackageEvent.build(keyPackage: mine.keyPackage, relays: [], keys: keys) }
    }

    @Test func rejectsForgedEventSignature() throws {
        let made = try TestKeyPackages.make(identity: keys.publicKey, now: now)
        let event = try TestKeyPackages.event(made.keyPackage, keys: keys, now: now)
        let forged = Event(id: event.id, pubkey: event.pubkey, createdAt: event.createdAt, kind: event.kind,
                           tags: event.tags, content: event.content, sig: try Signature(bytes: [UInt8](repeating: 1, count: 64)))
        #expect(throws: KeyPackageEventError.invalidEvent(.invalidSignature)) { try PeerKeyPackage(event: forged, now: now) }
        _ = try PeerKeyPackage(event: forged, now: now, verifySignature: false)
    }

    /// Rule 10 checks, each on an otherwise valid event.
    @Test func rejectsInvalidKeyPackages() throws {
        let id = keys.publicKey
        func rejection(_ made: TestKeyPackages.Made) throws -> KeyPackageEventError? {
            let event = try TestKeyPackages.event(made.keyPackage, keys: keys, now: now)
            do { _ = try PeerKeyPackage(event: event, now: now); return nil } catch { return error }
        }
        #expect(try rejection(TestKeyPackages.make(identity: id, now: now)) == nil)

        var badLeafSig = try TestKeyPackages.make(identity: id, now: now)
        badLeafSig.keyPackage.leafNode.signature[0] ^= 1
        #expect(try rejection(badLeafSig) == .invalidKeyPackage(.invalidLeafSignature))

        var badSig = try TestKeyPackages.make(identity: id, now: now)
        badSig.keyPackage.signature[0] ^= 1
        #expect(try rejection(badSig) == .invalidKeyPackage(.invalidSignature))

        let sameKeys = try TestKeyPackages.make(identity: id, now: now, editPackage: { $0.initKey = $0.leafNode.encryptionKey })
        #expect(try rejection(sameKeys) == .invalidKeyPackage(.initKeyEqualsEncryptionKey))

        let expired = try TestKeyPackages.make(identity: id, now: now - 8_000_000)
        #expect(try rejection(expired) == .invalidKeyPackage(.lifetimeNotValid(
            notBefore: UInt64(now - 8_000_000 - 3600), notAfter: UInt64(now - 8_000_000 + 7_257_600), now: now)))

        let unlisted = try TestKeyPackages.make(identity: id, now: now, editLeaf: { $0.capabilities.extensions = [.marmotGroupData] })
        #expect(try rejection(unlisted) == .invalidKeyPackage(.extensionNotInCapabilities(.lastResort)))

        let leafExt = try TestKeyPackages.make(identity: id, now: now, editLeaf: { $0.extensions = [Extension(type: ExtensionType(rawValue: 0xff00), data: Data())] })
        #expect(try rejection(leafExt) == .invalidKeyPackage(.extensionNotInCapabilities(ExtensionType(rawValue: 0xff00))))

        let otherSuite = try TestKeyPackages.make(identity: id, now: now, editPackage: { $0.cipherSuite = CipherSuite(rawValue: 2) })
        #expect(try rejection(otherSuite) == .invalidKeyPackage(.unsupportedCipherSuite(2)))

        let otherVersion = try TestKeyPackages.make(identity: id, now: now, editPackage: { $0.version = ProtocolVersion(rawValue: 2) })
        #expect(try rejection(otherVersion) == .invalidKeyPackage(.unsupportedVersion(2)))

        let hexIdentity = try TestKeyPackages.make(identity: id, now: now, editLeaf: { $0.credential = .basic(identity: Data(id.hex.utf8)) })
        #expect(try rejection(hexIdentity) == .invalidCredential("identity is 64 bytes, not 32"))

        let other = Keys.generate().publicKey
        let foreign = try TestKeyPackages.make(identity: other, now: now)
        #expect(try rejection(foreign) == .identityMismatch(credential: other.hex, author: id))
    }

    @Test func dTagValidation() throws {
        #expect(try KeyPackageDTag(String(repeating: "A", count: 64)).value == String(repeating: "a", count: 64))
        #expect(throws: KeyPackageEventError.invalidDTag("ab")) { try KeyPackageDTag("ab") }
        #expect(KeyPackageDTag.random() != KeyPackageDTag.random())
    }
}
