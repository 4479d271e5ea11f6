import Foundation
import Nostr
import Testing
@testable import MarmotWire

/// `imeta` tags a hostile member could send: each is refused with a clear error (or, for
/// dimensions, bounded), in both versions.
struct HostileImetaTests {
    static let policy = MediaURLPolicy(ownServers: [URL(string: "http://127.0.0.1:4455")!])
    static let blob = String(repeating: "ab", count: 32), plain = String(repeating: "cd", count: 32)

    /// A valid tag of each version, with `url` and the other fields replaceable.
    static func tag(_ scheme: any MediaScheme, url: String = "https://blossom.example/\(blob).bin",
                    filename: String = "photo.jpg", dim: String? = nil, extra: [String] = []) -> [String] {
        if scheme.version == "mip04-v2" {
            return ["imeta", "url \(url)", "m image/jpeg", "filename \(filename)"] + (dim.map { ["dim \($0)"] } ?? [])
                + ["x \(plain)", "n efefefefefefefefefefefef", "v mip04-v2"] + extra
        }
        return ["imeta", "v encrypted-media-v2", "locator blossom-v1 \(url)", "ciphertext_sha256 \(blob)",
                "plaintext_sha256 \(plain)", "nonce efefefefefefefefefefefef", "m image/jpeg", "filename \(filename)"]
            + (dim.map { ["dim \($0)"] } ?? []) + extra
    }

    static let schemes: [any MediaScheme] = [V1MediaScheme(), V2MediaScheme()]

    @Test(arguments: [0, 1])
    func nonHTTPAndPrivateNetworkURLsAreRefused(index: Int) {
        let scheme = Self.schemes[index]
        let b = Self.blob
        let refused = [
            "file:///etc/\(b)", "ftp://blossom.example/\(b)", "javascript:alert(1)//\(b)", "gopher://x/\(b)",
            "http://127.0.0.1/\(b)", "http://127.1.2.3:8080/\(b)", "https://10.0.0.7/\(b)", "https://192.168.1.1/\(b)",
            "https://172.16.0.1/\(b)", "https://169.254.169.254/\(b)", "https://100.64.0.1/\(b)", "https://0.0.0.0/\(b)",
            "https://[::1]/\(b)", "https://[fe80::1]/\(b)", "https://[fd00::1]/\(b)", "https://[::ffff:127.0.0.1]/\(b)",
            "https://[::ffff:7f00:1]/\(b)", "https://[2002:7f00:1::]/\(b)",
            "https://localhost/\(b)", "https://LOCALHOST./\(b)", "https://api.localhost/\(b)", "https://printer.local/\(b)",
            "https://2130706433/\(b)", "https://0x7f.1/\(b)", "https://0177.0.0.1/\(b)", "https://127.1/\(b)",
            "https://user:pw@blossom.example/\(b)", "https://blossom.example/\(b)#frag",
            "http://127.0.0.1:4456/\(b)",  // an own server's host but another port
        ]
        for url in refused {
            #expect(throws: MediaError.self, "\(url) accepted") {
                try scheme.reference(imeta: Self.tag(scheme, url: url), policy: Self.policy)
            }
        }
        // A public host or address, and our own server on loopback, are fine.
        for url in ["https://blossom.example/\(b)", "https://93.184.216.34/\(b)", "https://[2606:4700::1111]/\(b)",
                    "http://cdn.hzrd149.com:8080/\(b).png", "https://8.8.8.8./\(b)"] {
            #expect(throws: Never.self, "\(url) refused") { try scheme.reference(imeta: Self.tag(scheme, url: url), policy: Self.policy) }
        }
        for url in ["https://[2001:db8::1]/\(b)", "https://[ff02::1]/\(b)", "https://[::]/\(b)", "https://224.0.0.1/\(b)",
                    "https://198.18.0.1/\(b)", "https://999.1.1.1/\(b)"] {
            #expect(throws: MediaError.self, "\(url) accepted") { try scheme.reference(imeta: Self.tag(scheme, url: url), policy: Self.policy) }
        }
        #expect(throws: Never.self) {
            try scheme.reference(imeta: Self.tag(scheme, url: "http://127.0.0.1:4455/\(b)"), policy: Self.policy)
        }
        // Without that own server, loopback is refused again.
        #expect(throws: MediaError.self) {
            try scheme.reference(imeta: Self.tag(scheme, url: "http://127.0.0.1:4455/\(b)"), policy: MediaURLPolicy(ownServers: []))
        }
    }

    @Test(arguments: [0, 1])
    func hugeDimensionsAreDroppedNotTrusted(index: Int) throws {
        let scheme = Self.schemes[index]
        for dim in ["4294967295x4294967295", "100000x2", "16385x1", "16384x16384", "0x10", "-5x7", "12", "1e9x1", "x", "10x10x10"] {
            let reference = try scheme.reference(imeta: Self.tag(scheme, dim: dim), policy: Self.policy)
            #expect(reference.dimensions == nil, "\(dim) kept")
        }
        let fine = try scheme.reference(imeta: Self.tag(scheme, dim: "4000x3000"), policy: Self.policy)
        #expect(fine.dimensions == MediaDimensions(width: 4000, height: 3000))
    }

    /// v1 refuses separators and control characters as MDK 0.8.0 does; v2 authenticates what MDK
    /// 0.9.14 allows (anything but NUL, ≤ 255 bytes) and `safeFilename` is a plain base name.
    @Test func filenamePathTricks() throws {
        let v1 = V1MediaScheme(), v2 = V2MediaScheme()
        for name in ["../../.ssh/authorized_keys", "a/b.jpg", "..\\..\\win.ini", "a\u{1}.jpg", "line\nbreak.jpg", "\u{7f}x.jpg",
                     String(repeating: "a", count: 211), ""] {
            #expect(throws: MediaError.self, "v1 accepted \(name.debugDescription)") {
                try v1.reference(imeta: Self.tag(v1, filename: name), policy: Self.policy)
            }
        }
        for name in ["a\u{0}.jpg", String(repeating: "é", count: 128), ""] {
            #expect(throws: MediaError.self, "v2 accepted \(name.debugDescription)") {
                try v2.reference(imeta: Self.tag(v2, filename: name), policy: Self.policy)
            }
        }
        let expectations: [(String, String)] = [
            ("../../.ssh/authorized_keys", "authorized_keys"), ("..\\..\\win.ini", "win.ini"), ("..", "file"),
            ("/etc/passwd", "passwd"), (".bashrc", "bashrc"), ("a\u{1b}[31mred.jpg", "a[31mred.jpg"),
            ("photo\u{202e}gpj.exe", "photogpj.exe"), ("  ", "file"), ("dir/", "file"),
        ]
        for (name, safe) in expectations {
            let reference = try v2.reference(imeta: Self.tag(v2, filename: name), policy: Self.policy)
            #expect(reference.filename == name)
            #expect(reference.safeFilename == safe, "\(name.debugDescription) → \(reference.safeFilename.debugDescription)")
        }
        #expect(MediaFilename.safe(String(repeating: "ü", count: 300)).utf8.count <= 255)
        // v1's ".." without a separator is allowed by MDK 0.8.0, and shown safely.
        #expect(try v1.reference(imeta: Self.tag(v1, filename: ".."), policy: Self.policy).safeFilename == "file")
    }

    @Test(arguments: [0, 1])
    func badHexUnknownVersionsAndMissingFields(index: Int) {
        let scheme = Self.schemes[index]
        let valid = Self.tag(scheme)
        let hashField = index == 0 ? "x " : "plaintext_sha256 "
        let nonceField = index == 0 ? "n " : "nonce "
        func replacing(_ prefix: String, with entry: String?) -> [String] {
            valid.compactMap { $0.hasPrefix(prefix) ? entry : $0 }
        }
        let broken: [[String]] = [
            replacing(hashField, with: hashField + String(Self.plain.dropLast(2))),
            replacing(hashField, with: hashField + Self.plain + "00"),
            replacing(hashField, with: hashField + String(repeating: "zz", count: 32)),
            replacing(nonceField, with: nonceField + "efefefefefefefefefefef"),
            replacing(nonceField, with: nonceField + "efefefefefefefefefefefefef"),
            replacing(nonceField, with: nonceField + "gggggggggggggggggggggggg"),
            replacing("v ", with: "v mip04-v1"),
            replacing("v ", with: "v encrypted-media-v3"),
            replacing("v ", with: "v "),
            replacing(hashField, with: nil),
            replacing(nonceField, with: nil),
            replacing("v ", with: nil),
            replacing("m ", with: nil),
            replacing("filename ", with: nil),
            replacing("m ", with: "m text"),
            valid + [hashField + Self.plain],
            valid + ["m image/png"],
            ["p", "imeta"],
            [],
        ]
        for tag in broken {
            #expect(throws: MediaError.self, "accepted \(tag)") { try scheme.reference(imeta: tag, policy: Self.policy) }
        }
        #expect(throws: MediaError.unsupportedVersion("mip04-v1 (deprecated by MIP-04: derived nonces)")) {
            try V1MediaScheme().reference(imeta: Self.tag(V1MediaScheme()).map { $0 == "v mip04-v2" ? "v mip04-v1" : $0 }, policy: Self.policy)
        }
    }

    @Test func versionSpecificHostileFields() throws {
        let v1 = V1MediaScheme(), v2 = V2MediaScheme()
        // A declared size over the version's limit.
        #expect(throws: MediaError.tooLarge(size: 104_857_601 + 16, max: 104_857_600 + 16)) {
            try v1.reference(imeta: Self.tag(v1, extra: ["size 104857617"]), policy: Self.policy)
        }
        #expect(throws: MediaError.tooLarge(size: 600_000_000, max: 512 * 1024 * 1024)) {
            try v2.reference(imeta: Self.tag(v2, extra: ["size 600000000"]), policy: Self.policy)
        }
        #expect(try v2.reference(imeta: Self.tag(v2, extra: ["size 1234"]), policy: Self.policy).size == 1234)
        #expect(throws: MediaError.self) { try v1.reference(imeta: Self.tag(v1, extra: ["size -1"]), policy: Self.policy) }
        #expect(throws: MediaError.self) { try v1.reference(imeta: Self.tag(v1, extra: ["size 99999999999999999999999"]), policy: Self.policy) }
        // v1: the URL must name the blob (there is no other hash of it in the tag).
        #expect(throws: MediaError.invalidField("url", "does not name the blob by its SHA-256")) {
            try v1.reference(imeta: Self.tag(v1, url: "https://blossom.example/photo.jpg"), policy: Self.policy)
        }
        // v2: blurhash is refused, a Blossom locator must name ciphertext_sha256, one must exist.
        #expect(throws: MediaError.self) { try v2.reference(imeta: Self.tag(v2, extra: ["blurhash LEHV6nWB2yk8"]), policy: Self.policy) }
        #expect(throws: MediaError.invalidField("locator", "names another blob than ciphertext_sha256")) {
            try v2.reference(imeta: Self.tag(v2, url: "https://blossom.example/\(String(repeating: "77", count: 32)).bin"), policy: Self.policy)
        }
        let noBlossom = Self.tag(v2).map { $0.hasPrefix("locator ") ? "locator ipfs-v1 ipfs://bafy" : $0 }
        #expect(throws: MediaError.self) { try v2.reference(imeta: noBlossom, policy: Self.policy) }
        #expect(throws: MediaError.missingField("locator")) {
            try v2.reference(imeta: Self.tag(v2).filter { !$0.hasPrefix("locator") }, policy: Self.policy)
        }
        #expect(throws: MediaError.missingField("dim")) { try v2.reference(imeta: Self.tag(v2) + ["dim"], policy: Self.policy) }
        // A second Blossom locator pointing into our network is refused too (we may fall back to it).
        #expect(throws: MediaError.self) {
            try v2.reference(imeta: Self.tag(v2, extra: ["locator blossom-v1 http://10.1.1.1/\(Self.blob)"]), policy: Self.policy)
        }
        // Overlong preview hashes are dropped, not kept.
        let long = String(repeating: "A", count: 5000)
        #expect((try? v1.reference(imeta: Self.tag(v1, extra: ["blurhash \(long)"]), policy: Self.policy))?.blurhash == nil)
    }
    /// Random tags assembled from valid and hostile pieces (and huge values) never crash either
    /// parser, and whatever is accepted renders to a tag that parses to the same reference.
    @Test(arguments: [0, 1])
    func randomTagsNeverCrash(index: Int) {
        let scheme = Self.schemes[index]
        let valid = Self.tag(scheme)
        let pieces = valid + [
            "url", "x", "n", "v", "m", "filename", "locator", "locator blossom-v1", "dim 1x1", "dim 99999999999x1",
            "filename ../../x", "filename " + String(repeating: "x", count: 100_000), "m " + String(repeating: "a", count: 10_000) + "/b",
            "url https://127.0.0.1/\(Self.blob)", "locator blossom-v1 file:///\(Self.blob)", "x 00", "nonce zz", "v", "",
            " ", "imeta", "size 1", "size 1e9", "thumbhash " + String(repeating: "t", count: 2000), "\u{0}", "é é é",
        ]
        var rng = SystemRandomNumberGenerator()
        var accepted = 0
        for _ in 0..<3000 {
            var tag = ["imeta"] + (0..<Int.random(in: 0...12, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }
            if Bool.random(using: &rng) {
                // The valid tag with one entry replaced or one added.
                tag = valid
                let position = Int.random(in: 1...tag.count, using: &rng)
                let piece = pieces.randomElement(using: &rng)!
                if position < tag.count, Bool.random(using: &rng) { tag[position] = piece } else { tag.insert(piece, at: position) }
            }
            guard let reference = try? scheme.reference(imeta: tag, policy: Self.policy) else { continue }
            accepted += 1
            #expect((try? scheme.reference(imeta: reference.tag, policy: Self.policy)) == reference)
        }
        #expect(accepted > 100, "only \(accepted) of 3000 accepted: the mutations should leave many valid")
    }
}
