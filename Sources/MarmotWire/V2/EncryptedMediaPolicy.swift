import Foundation

/// Component 0x800b `marmot.group.encrypted-media.v2`: `<V>media_format ‖ <V>(<V>locator_kind)… ‖
/// <V>(<V>locator_kind ‖ <V>base_url)…`, format `encrypted-media-v2`, 1–16 allowed locator kinds
/// (lower-case ASCII, digits, `-`, ≤ 64 B, unique) and 1–16 default blob endpoints of an allowed
/// kind with an http(s) base URL of ≤ 2048 B, unique (MDK 0.9.14
/// `traits/src/app_components/encrypted_media_v2.rs`). A group that requires 0x800b lets its
/// members send media as `V2MediaScheme` does; the endpoints are where members upload by default.
public struct EncryptedMediaPolicy: Hashable, Sendable {
    public static let mediaFormat = "encrypted-media-v2"
    public static let blossomLocator = "blossom-v1"
    public static let maxLocatorKinds = 16
    public static let maxEndpoints = 16
    public static let maxLocatorKindBytes = 64
    public static let maxURLBytes = 2048

    /// MDK 0.9.14 `DEFAULT_BLOSSOM_SERVER_URLS`, normalised as its policy constructor writes them
    /// (WHATWG serialisation: a trailing `/` for an empty path), in upload fallback order.
    public static let defaultBlossomServers = [
        "https://blossom.divine.video/", "https://blossom.ditto.pub/", "https://cdn.hzrd149.com/",
    ]

    public struct Endpoint: Hashable, Sendable {
        public let locatorKind: String
        public let baseURL: String
        public init(locatorKind: String, baseURL: String) {
            self.locatorKind = locatorKind
            self.baseURL = baseURL
        }
    }

    public let allowedLocatorKinds: [String]
    public let endpoints: [Endpoint]

    /// Blossom only, with `servers` (already normalised base URLs) as the default endpoints, as
    /// MDK's `blossom_default` makes a new group's policy.
    public static func blossom(_ servers: [String] = defaultBlossomServers) throws(V2ComponentError) -> EncryptedMediaPolicy {
        try EncryptedMediaPolicy(
            allowedLocatorKinds: [blossomLocator],
            endpoints: servers.map { Endpoint(locatorKind: blossomLocator, baseURL: $0) })
    }

    public init(allowedLocatorKinds: [String], endpoints: [Endpoint]) throws(V2ComponentError) {
        try Self.validate(allowedLocatorKinds: allowedLocatorKinds, endpoints: endpoints)
        self.allowedLocatorKinds = allowedLocatorKinds
        self.endpoints = endpoints
    }

    public var bytes: [UInt8] {
        var allowed: [UInt8] = []
        for kind in allowedLocatorKinds { QUICVarint.encodeBytes(Array(kind.utf8), into: &allowed) }
        var entries: [UInt8] = []
        for endpoint in endpoints {
            QUICVarint.encodeBytes(Array(endpoint.locatorKind.utf8), into: &entries)
            QUICVarint.encodeBytes(Array(endpoint.baseURL.utf8), into: &entries)
        }
        var out: [UInt8] = []
        QUICVarint.encodeBytes(Array(Self.mediaFormat.utf8), into: &out)
        QUICVarint.encodeBytes(allowed, into: &out)
        QUICVarint.encodeBytes(entries, into: &out)
        return out
    }

    /// Decodes strictly: wrong format, duplicates, unknown endpoint kinds, bad URLs, trailing bytes
    /// are refused, never repaired.
    public init(bytes: [UInt8]) throws(V2ComponentError) {
        var cursor = bytes[...]
        let format = try QUICVarint.decodeBytes(&cursor, maxLength: 64, label: "encrypted media format")
        let allowedBytes = try QUICVarint.decodeBytes(
            &cursor, maxLength: Self.maxLocatorKinds * (Self.maxLocatorKindBytes + 2), label: "locator kinds")
        let endpointBytes = try QUICVarint.decodeBytes(
            &cursor, maxLength: Self.maxEndpoints * ((Self.maxLocatorKindBytes + 2) + (Self.maxURLBytes + 2) + 2),
            label: "blob endpoints")
        guard cursor.isEmpty else { throw .trailingBytes("encrypted media policy") }
        guard String(validating: format, as: UTF8.self) == Self.mediaFormat else {
            throw .invalidMediaPolicy("format is not \(Self.mediaFormat)")
        }
        var kinds: [String] = []
        var allowed = allowedBytes[...]
        while !allowed.isEmpty {
            let raw = try QUICVarint.decodeBytes(&allowed, maxLength: Self.maxLocatorKindBytes, label: "locator kind")
            guard let kind = String(validating: raw, as: UTF8.self) else { throw .notUTF8("locator kind") }
            kinds.append(kind)
        }
        var endpoints: [Endpoint] = []
        var entries = endpointBytes[...]
        while !entries.isEmpty {
            let kind = try QUICVarint.decodeBytes(&entries, maxLength: Self.maxLocatorKindBytes, label: "endpoint locator kind")
            let url = try QUICVarint.decodeBytes(&entries, maxLength: Self.maxURLBytes, label: "endpoint base URL")
            guard let kindText = String(validating: kind, as: UTF8.self) else { throw .notUTF8("endpoint locator kind") }
            guard let urlText = String(validating: url, as: UTF8.self) else { throw .notUTF8("endpoint base URL") }
            endpoints.append(Endpoint(locatorKind: kindText, baseURL: urlText))
        }
        try self.init(allowedLocatorKinds: kinds, endpoints: endpoints)
    }

    static func validate(allowedLocatorKinds kinds: [String], endpoints: [Endpoint]) throws(V2ComponentError) {
        guard !kinds.isEmpty else { throw .invalidMediaPolicy("no allowed locator kind") }
        guard kinds.count <= maxLocatorKinds else { throw .invalidMediaPolicy("more than \(maxLocatorKinds) locator kinds") }
        guard Set(kinds).count == kinds.count else { throw .invalidMediaPolicy("a locator kind is listed twice") }
        for kind in kinds {
            guard !kind.isEmpty, kind.utf8.count <= maxLocatorKindBytes,
                  kind.utf8.allSatisfy({ (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d })
            else { throw .invalidMediaPolicy("locator kind \(kind.prefix(64)) is not lower-case ASCII, digits and '-'") }
        }
        guard !endpoints.isEmpty else { throw .invalidMediaPolicy("no default blob endpoint") }
        guard endpoints.count <= maxEndpoints else { throw .invalidMediaPolicy("more than \(maxEndpoints) blob endpoints") }
        guard Set(endpoints).count == endpoints.count else { throw .invalidMediaPolicy("a blob endpoint is listed twice") }
        for endpoint in endpoints {
            guard kinds.contains(endpoint.locatorKind) else { throw .invalidMediaPolicy("an endpoint's locator kind is not allowed") }
            try validateBaseURL(endpoint.baseURL)
        }
    }

    /// http(s), a host, no credentials, query or fragment, ≤ 2048 bytes (MDK
    /// `validate_and_normalize_blob_endpoint_url_v2`; reachability is not a validity rule).
    static func validateBaseURL(_ text: String) throws(V2ComponentError) {
        guard !text.isEmpty, text.utf8.count <= maxURLBytes else { throw .invalidMediaPolicy("endpoint URL is empty or too long") }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { throw .invalidMediaPolicy("endpoint URL \(text.prefix(100)) is not an http(s) URL with a host") }
        guard components.user == nil, components.password == nil, components.query == nil, components.fragment == nil else {
            throw .invalidMediaPolicy("endpoint URL carries credentials, a query or a fragment")
        }
    }
}
