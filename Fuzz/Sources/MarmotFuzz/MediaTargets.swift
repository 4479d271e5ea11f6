import Foundation
import MarmotWire
import MLS
import Nostr

/// `imeta` tags from other members (issue 28): the v1 (MIP-04 `mip04-v2`) and v2 (0x800b) reference
/// parsers, which decide what a client fetches from where and what name it saves a file under.
enum MediaFixture {
    static let policy = MediaURLPolicy(ownServers: [URL(string: "http://127.0.0.1:7447")!])

    /// A valid tag of `scheme`: a small PNG encrypted under a fixed secret, on a public server.
    static func tag(_ scheme: any MediaScheme) -> [String] {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 7, count: 64)
        let encrypted = try! scheme.encrypt(
            png, mimeType: "image/png", filename: "seed.png", dimensions: MediaDimensions(width: 8, height: 6),
            secret: MediaSecret(bytes: Data(repeating: 1, count: 32)))
        let url = URL(string: "https://blossom.example/\(Hex.encode(encrypted.ciphertextSHA256))")!
        return encrypted.reference(url: url).tag
    }

    static func json(_ tag: [String]) -> Data { try! JSONEncoder().encode(tag) }
}

enum MediaTargets {
    static let all: [FuzzTarget] = [target("media-imeta-v1", V1MediaScheme()), target("media-imeta-v2", V2MediaScheme())]

    /// Parses a JSON array of strings as an `imeta` tag; a tag that passes must render to a tag that
    /// parses to the same reference, and its shown name must be a plain base name.
    static func target(_ name: String, _ scheme: any MediaScheme) -> FuzzTarget {
        FuzzTarget(name: name, summary: "MediaScheme.reference(imeta:) of a JSON tag (round trip, safe name)", seeds: {
            let tag = MediaFixture.tag(scheme)
            return [MediaFixture.json(tag), MediaFixture.json(tag.map { $0.replacingOccurrences(of: "seed.png", with: "../x") })]
        }, run: { data in
            guard let tag = try? JSONDecoder().decode([String].self, from: data),
                  let reference = try? scheme.reference(imeta: tag, policy: MediaFixture.policy) else { return }
            let again: MediaReference
            do { again = try scheme.reference(imeta: reference.tag, policy: MediaFixture.policy) } catch {
                FuzzFailure.fail(name, "our own rendering does not parse: \(error)")
            }
            FuzzFailure.expectEqual(name, again, reference, "parse(render(r)) != r")
            let shown = reference.safeFilename
            if shown.contains("/") || shown.contains("\\") || shown.hasPrefix(".") || shown.isEmpty {
                FuzzFailure.fail(name, "unsafe shown name \(shown.debugDescription)")
            }
        })
    }
}
