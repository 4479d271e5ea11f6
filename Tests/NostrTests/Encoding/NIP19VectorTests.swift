import Testing
import TestSupport
@testable import Nostr

/// Shape of nip19.json.
struct NIP19File: Decodable, Sendable {
    struct Bare: Decodable, Sendable { let prefix, bech32, hex: String }
    struct Pair: Decodable, Sendable { let nsec_hex, npub_hex, nsec, npub: String }
    struct TLV: Decodable, Sendable {
        struct Expected: Decodable, Sendable { let pubkey: String; let relays: [String] }
        let prefix, bech32: String
        let expected: Expected
    }
    let bare_keys: [Bare]
    let keypairs: [Pair]
    let tlv: [TLV]
}

@Suite("NIP-19 vectors")
struct NIP19VectorTests {
    @Test func vectorFile() throws {
        guard let file = try SharedFixtures.loadJSON(NIP19File.self, "nostr/nip19.json") else { return }
        for bare in file.bare_keys {
            switch bare.prefix {
            case "npub":
                let pk = try PublicKey(npub: bare.bech32)
                #expect(pk.hex == bare.hex)
                #expect(pk.npub == bare.bech32)
                #expect(try NIP19.decode(bare.bech32) == .npub(pk))
            case "nsec":
                let sk = try SecretKey(nsec: bare.bech32)
                #expect(sk.hexEncodedSecret() == bare.hex)
                #expect(sk.nsecEncoded() == bare.bech32)
                #expect(try NIP19.decode(bare.bech32) == .nsec(sk))
            default:
                Issue.record("unexpected prefix \(bare.prefix)")
            }
        }
        for pair in file.keypairs {
            let keys = try Keys(importing: pair.nsec)
            #expect(keys.secretKey.hexEncodedSecret() == pair.nsec_hex)
            #expect(keys.publicKey.hex == pair.npub_hex)
            #expect(keys.publicKey.npub == pair.npub)
        }
        for entry in file.tlv {
            #expect(entry.prefix == "nprofile")
            guard case .nprofile(let profile) = try NIP19.decode(entry.bech32) else {
                Issue.record("not decoded as nprofile")
                continue
            }
            #expect(profile.publicKey.hex == entry.expected.pubkey)
            #expect(profile.relays == entry.expected.relays)
            #expect(NIP19.encode(profile) == entry.bech32)
        }
        let total = file.bare_keys.count + file.keypairs.count + file.tlv.count
        SharedFixtures.report("nip19.json", ran: total, skipped: 0,
                              reason: "none; \(file.bare_keys.count) bare, \(file.keypairs.count) keypairs, \(file.tlv.count) tlv")
    }
}
