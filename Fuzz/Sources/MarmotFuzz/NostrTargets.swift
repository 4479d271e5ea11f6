import Foundation
import Nostr

/// Fixed keys so every run of a target sees the same world.
enum NostrFixture {
    static let recipient = Keys(secretKey: try! SecretKey(bytes: [UInt8](repeating: 0x11, count: 32)))
    static let author = Keys(secretKey: try! SecretKey(bytes: [UInt8](repeating: 0x22, count: 32)))
    static let ephemeral = Keys(secretKey: try! SecretKey(bytes: [UInt8](repeating: 0x33, count: 32)))
    static let conversationKey = NIP44.ConversationKey(secretKey: author.secretKey, publicKey: recipient.publicKey)
    static let now: Int64 = 1_760_000_000

    static func rumor(_ content: String = "hi") -> UnsignedEvent {
        UnsignedEvent(pubkey: author.publicKey, createdAt: now, kind: .chatMessage, tags: [Tag(["e", String(repeating: "ab", count: 32)])], content: content)
    }

    static func event(kind: Kind = .textNote, tags: [Tag] = [], content: String = "hello \u{1F600} \"q\"\n") -> Event {
        try! UnsignedEvent(pubkey: author.publicKey, createdAt: now, kind: kind, tags: tags, content: content).signed(with: author)
    }
}

enum NostrTargets {
    static let all: [FuzzTarget] = [
        FuzzTarget(name: "json", summary: "JSONValue.parse (round trip through jsonString)", seeds: {
            [#"{"a":[1,-2,3.5e3,true,false,null],"b":"\u00e9\ud83d\ude00\n"}"#, "[]", #""x""#, "0",
             NostrFixture.event().jsonString].map { Data($0.utf8) }
        }, run: { data in
            guard let value = try? JSONValue.parse(utf8: data) else { return }
            let text = value.jsonString
            let again: JSONValue
            do { again = try JSONValue.parse(text) } catch { FuzzFailure.fail("json", "our own output does not parse: \(error) in \(text.debugDescription)") }
            FuzzFailure.expectEqual("json", again, value, "parse(write(v)) != v")
        }),
        FuzzTarget(name: "client-message", summary: "ClientMessage(json:) (round trip)", seeds: {
            let event = NostrFixture.event()
            let filter = Filter(ids: [event.id], authors: [event.pubkey], kinds: [.textNote, .giftWrap], tags: ["p": [event.pubkey.hex]], since: 1, until: 2, limit: 10)
            return [ClientMessage.event(event), .req("sub", [filter, Filter()]), .close("sub"), .auth(event)].map { Data($0.jsonString.utf8) }
        }, run: { data in
            guard let text = String(data: data, encoding: .utf8), let message = try? ClientMessage(json: text) else { return }
            let again: ClientMessage
            do { again = try ClientMessage(json: message.jsonString) } catch { FuzzFailure.fail("client-message", "our own output does not parse: \(error)") }
            FuzzFailure.expectEqual("client-message", again, message, "parse(write(m)) != m")
        }),
        FuzzTarget(name: "relay-message", summary: "RelayMessage(json:) (round trip, events verified)", seeds: {
            let event = NostrFixture.event()
            return [RelayMessage.event("s", event), .ok(event.id, accepted: false, message: "invalid: x"), .eose("s"),
                    .closed("s", message: "error: y"), .notice("n"), .auth(challenge: "c")].map { Data($0.jsonString.utf8) }
        }, run: { data in
            guard let text = String(data: data, encoding: .utf8), let message = try? RelayMessage(json: text) else { return }
            let again: RelayMessage
            do { again = try RelayMessage(json: message.jsonString) } catch { FuzzFailure.fail("relay-message", "our own output does not parse: \(error)") }
            FuzzFailure.expectEqual("relay-message", again, message, "parse(write(m)) != m")
        }),
        FuzzTarget(name: "nip19", summary: "NIP19.decode (round trip through the encoders)", seeds: {
            let key = NostrFixture.author.publicKey
            let id = NostrFixture.event().id
            return [key.npub, id.note,
                    NIP19.encode(NIP19.ProfilePointer(publicKey: key, relays: ["wss://r.example", "wss://s.example"])),
                    NIP19.encode(NIP19.EventPointer(id: id, relays: ["wss://r.example"], author: key, kind: .textNote)),
                    NIP19.encode(NIP19.AddressPointer(identifier: "d-tag", author: key, kind: Kind(30443), relays: ["wss://r.example"]))]
                .map { Data($0.utf8) }
        }, run: { data in
            guard let text = String(data: data, encoding: .utf8), let entity = try? NIP19.decode(text) else { return }
            let encoded: String
            switch entity {
            case .npub(let key): encoded = key.npub
            case .nsec: return
            case .note(let id): encoded = id.note
            case .nprofile(let pointer): encoded = NIP19.encode(pointer)
            case .nevent(let pointer): encoded = NIP19.encode(pointer)
            case .naddr(let pointer): encoded = NIP19.encode(pointer)
            }
            let again: NIP19.Entity
            do { again = try NIP19.decode(encoded) } catch { FuzzFailure.fail("nip19", "our own encoding does not decode: \(error)") }
            FuzzFailure.expectEqual("nip19", again, entity, "decode(encode(e)) != e")
        }),
        FuzzTarget(name: "nip44", summary: "NIP44.decrypt (byte 0 = 0: raw payload; else plaintext round trip)", seeds: {
            let payload = try! NIP44.encrypt("a secret message", conversationKey: NostrFixture.conversationKey)
            return [Data([0]) + Data(payload.utf8), Data([1]) + Data("round trip \u{e9}".utf8), Data([1]) + Data(repeating: 0x61, count: 300)]
        }, run: { data in
            guard let mode = data.first else { return }
            let rest = data.dropFirst()
            if mode == 0 {
                guard let payload = String(data: rest, encoding: .utf8) else { return }
                _ = try? NIP44.decrypt(payload, conversationKey: NostrFixture.conversationKey)
            } else {
                guard let plaintext = String(data: rest, encoding: .utf8),
                      let payload = try? NIP44.encrypt(plaintext, conversationKey: NostrFixture.conversationKey) else { return }
                let opened: String
                do { opened = try NIP44.decrypt(payload, conversationKey: NostrFixture.conversationKey) } catch {
                    FuzzFailure.fail("nip44", "our own payload does not decrypt: \(error)")
                }
                FuzzFailure.expectEqual("nip44", opened, plaintext, "decrypt(encrypt(p)) != p")
            }
        }),
        FuzzTarget(name: "nip59", summary: "GiftWrap.unwrap (byte 0: 0 wrap content, 1 seal JSON, 2 rumor JSON; outer layers built and signed)", seeds: {
            let wrap = try! GiftWrap.wrap(NostrFixture.rumor(), author: NostrFixture.author, recipient: NostrFixture.recipient.publicKey)
            let sealJSON = try! NIP44.decrypt(wrap.content, recipient: NostrFixture.recipient.secretKey, sender: wrap.pubkey)
            return [Data([0]) + Data(wrap.content.utf8), Data([1]) + Data(sealJSON.utf8), Data([2]) + Data(NostrFixture.rumor().jsonString.utf8)]
        }, run: { data in
            guard let mode = data.first, let text = String(data: data.dropFirst(), encoding: .utf8) else { return }
            let recipient = NostrFixture.recipient
            func wrap(content: String) -> Event? {
                try? UnsignedEvent(pubkey: NostrFixture.ephemeral.publicKey, createdAt: NostrFixture.now, kind: .giftWrap,
                                   tags: [Tag(["p", recipient.publicKey.hex])], content: content).signed(with: NostrFixture.ephemeral)
            }
            func encrypted(_ plaintext: String, from keys: Keys) -> String? {
                try? NIP44.encrypt(plaintext, from: keys.secretKey, to: recipient.publicKey)
            }
            let event: Event?
            switch mode {
            case 0: event = wrap(content: text)
            case 1: event = encrypted(text, from: NostrFixture.ephemeral).flatMap(wrap(content:))
            default:
                guard let sealContent = encrypted(text, from: NostrFixture.author),
                      let seal = try? UnsignedEvent(pubkey: NostrFixture.author.publicKey, createdAt: NostrFixture.now, kind: .seal,
                                                    tags: [], content: sealContent).signed(with: NostrFixture.author),
                      let content = encrypted(seal.jsonString, from: NostrFixture.ephemeral) else { return }
                event = wrap(content: content)
            }
            guard let event, let unwrapped = try? GiftWrap.unwrap(event, recipient: recipient.secretKey) else { return }
            if unwrapped.sender != unwrapped.rumor.pubkey { FuzzFailure.fail("nip59", "rumor author differs from the seal signer") }
            if mode >= 2, unwrapped.sender != NostrFixture.author.publicKey { FuzzFailure.fail("nip59", "sender is not the seal signer") }
        }),
    ]
}
