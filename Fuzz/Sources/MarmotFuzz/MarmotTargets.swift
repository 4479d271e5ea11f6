import Foundation
import MarmotWire
import MLS
import Nostr

enum MarmotFixture {
    static let groupID = try! NostrGroupID(bytes: [UInt8](repeating: 0x5A, count: 32))
    static let key = try! GroupEventKey(bytes: Data(repeating: 0x42, count: 32))

    static let groupData = NostrGroupData(
        nostrGroupID: groupID, name: "Fuzz \u{1F43F}", description: "a group", admins: [NostrFixture.author.publicKey],
        relays: [try! RelayURL("wss://relay.example"), try! RelayURL("ws://127.0.0.1:7447")],
        imageHash: Data(repeating: 1, count: 32), imageKey: Data(repeating: 2, count: 32),
        imageNonce: Data(repeating: 3, count: 12), imageUploadKey: Data(repeating: 4, count: 32))

    static let keyPackageEvents: KeyPackageEvent.Published = {
        let keys = NostrFixture.author
        let (keyPackage, _) = try! KeyPackage.create(identity: Data(keys.publicKey.bytes), keyPackageExtensions: [.lastResort])
        return try! KeyPackageEvent.build(
            keyPackage: keyPackage, relays: [try! RelayURL("wss://relay.example")], keys: keys, createdAt: NostrFixture.now)
    }()
}

enum MarmotTargets {
    static let all: [FuzzTarget] = [
        FuzzTarget(name: "group-data", summary: "NostrGroupData (0xF2EE extension; round trip)", seeds: {
            var v1 = MarmotFixture.groupData
            v1.version = 1
            return [MarmotFixture.groupData.tlsSerialized, NostrGroupData(
                nostrGroupID: MarmotFixture.groupID, name: "", description: "", admins: [], relays: []).tlsSerialized]
        }, run: { data in
            guard let value = try? NostrGroupData(extensionData: data) else { return }
            let encoded = value.tlsSerialized
            let again: NostrGroupData
            do { again = try NostrGroupData(extensionData: encoded) } catch {
                FuzzFailure.fail("group-data", "our own encoding does not decode: \(error)")
            }
            FuzzFailure.expectEqual("group-data", again, value, "decode(encode(g)) != g")
        }),
        FuzzTarget(name: "key-package-event", summary: "PeerKeyPackage(event:) from event JSON (kinds 443 / 30443)", seeds: {
            let published = MarmotFixture.keyPackageEvents
            return [published.addressable, published.legacy].map { Data($0.jsonString.utf8) }
        }, prepare: { _ = MarmotFixture.keyPackageEvents }, run: { data in
            guard let event = try? Event(jsonData: data, verify: false) else { return }
            guard let parsed = try? PeerKeyPackage(event: event, now: NostrFixture.now, verifySignature: false) else { return }
            if parsed.keyPackage.tlsSerialized != parsed.encodedKeyPackage {
                FuzzFailure.fail("key-package-event", "accepted KeyPackage does not re-encode to the published bytes")
            }
        }),
        FuzzTarget(name: "group-event", summary: "GroupEvent.validate + decrypt of kind-445 event JSON", seeds: {
            let message = MLSFixture.material.forBob[0].tlsSerialized
            let event = try! GroupEvent.build(mlsMessage: message, nostrGroupID: MarmotFixture.groupID, key: MarmotFixture.key, createdAt: NostrFixture.now)
            return [Data(event.jsonString.utf8)]
        }, run: { data in
            guard let event = try? Event(jsonData: data, verify: false),
                  let validated = try? GroupEvent.validate(event, now: NostrFixture.now, verifySignature: false) else { return }
            // Hex of either case is accepted (as MDK's hex decoding does); the id is the tag's value.
            FuzzFailure.expectEqual("group-event", validated.nostrGroupID.hex, (validated.event.tagValues("h").first ?? "").lowercased(), "group id vs h tag")
            _ = try? validated.decrypt(with: MarmotFixture.key)
        }),
        FuzzTarget(name: "chat-rumor", summary: "ChatRumor(plaintext:sender:) (the rumor inside MLS application data)", seeds: {
            let rumor = try! ChatRumor(author: NostrFixture.author.publicKey, content: "hi", tags: [Tag(["e", String(repeating: "cd", count: 32)])], createdAt: NostrFixture.now)
            return [rumor.plaintext]
        }, run: { data in
            guard let rumor = try? ChatRumor(plaintext: data, sender: NostrFixture.author.publicKey) else { return }
            let again: ChatRumor
            do { again = try ChatRumor(plaintext: rumor.plaintext, sender: NostrFixture.author.publicKey) } catch {
                FuzzFailure.fail("chat-rumor", "our own rumor does not parse: \(error)")
            }
            FuzzFailure.expectEqual("chat-rumor", again, rumor, "parse(write(r)) != r")
        }),
    ]
}
