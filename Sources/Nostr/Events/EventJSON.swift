/// JSON text encoding and strict decoding of events and rumors.
///
/// Output is compact with a fixed key order (`id, pubkey, created_at, kind, tags, content, sig`) and
/// NIP-01 string escaping. Input is parsed by `JSONValue` so integers are exact and duplicate keys,
/// upper-case hex and wrong lengths are rejected with `EventError.malformed`.
extension Event {
    /// Parses an event from JSON text; by default also verifies id and signature.
    public init(json: String, verify: Bool = true) throws {
        let value: JSONValue
        do { value = try JSONValue.parse(json) } catch { throw EventError.malformed(error.description) }
        try self.init(jsonValue: value, verify: verify)
    }

    /// Parses an event from UTF-8 JSON bytes; by default also verifies id and signature.
    public init<Bytes: Collection>(jsonData: Bytes, verify: Bool = true) throws where Bytes.Element == UInt8 {
        let value: JSONValue
        do { value = try JSONValue.parse(utf8: jsonData) } catch { throw EventError.malformed(error.description) }
        try self.init(jsonValue: value, verify: verify)
    }

    /// Builds an event from a parsed JSON object; by default also verifies id and signature.
    public init(jsonValue: JSONValue, verify: Bool = true) throws {
        guard let object = jsonValue.objectValue else { throw EventError.malformed("event is not a JSON object") }
        let fields = try EventFields(object)
        guard let idValue = object["id"] else { throw EventError.malformed("missing id") }
        guard let sigValue = object["sig"] else { throw EventError.malformed("missing sig") }
        let id = try EventID(hex: try EventFields.string(idValue, "id"))
        let sig = try Signature(hex: try EventFields.string(sigValue, "sig"))
        self.init(id: id, pubkey: fields.pubkey, createdAt: fields.createdAt, kind: fields.kind,
                  tags: fields.tags, content: fields.content, sig: sig)
        if verify { try self.verify() }
    }

    /// Compact JSON text.
    public var jsonString: String {
        var w = JSONWriter()
        write(to: &w)
        return w.string
    }

    /// Compact JSON as UTF-8 bytes.
    public var jsonBytes: [UInt8] {
        var w = JSONWriter()
        write(to: &w)
        return w.bytes
    }

    /// Appends this event as a JSON object.
    public func write(to w: inout JSONWriter) {
        var first = true
        w.byte(UInt8(ascii: "{"))
        w.key("id", first: &first); w.string(id.hex)
        w.key("pubkey", first: &first); w.string(pubkey.hex)
        w.key("created_at", first: &first); w.integer(createdAt)
        w.key("kind", first: &first); w.integer(kind.rawValue)
        w.key("tags", first: &first); w.tags(tags)
        w.key("content", first: &first); w.string(content)
        w.key("sig", first: &first); w.string(sig.hex)
        w.byte(UInt8(ascii: "}"))
    }
}

extension UnsignedEvent {
    /// Parses a rumor from JSON text; an `id`, if present, must match (`EventError.invalidID`).
    /// A `sig` field, if present, is ignored.
    public init(json: String) throws {
        let value: JSONValue
        do { value = try JSONValue.parse(json) } catch { throw EventError.malformed(error.description) }
        try self.init(jsonValue: value)
    }

    /// Builds a rumor from a parsed JSON object.
    ///
    /// `expectedAuthor`, the key the rumor should name (an authenticated MLS sender), is taken as the
    /// rumor's `pubkey` when the text names exactly it, which saves checking the point again (issue
    /// 27); any other `pubkey` is parsed and checked as usual, for the caller to refuse.
    public init(jsonValue: JSONValue, expectedAuthor: PublicKey? = nil) throws {
        guard let object = jsonValue.objectValue else { throw EventError.malformed("event is not a JSON object") }
        let fields = try EventFields(object, expectedPubkey: expectedAuthor)
        self.init(pubkey: fields.pubkey, createdAt: fields.createdAt, kind: fields.kind, tags: fields.tags, content: fields.content)
        if let idValue = object["id"] {
            let given = try EventID(hex: try EventFields.string(idValue, "id"))
            guard given == id else { throw EventError.invalidID }
        }
    }

    /// Compact rumor JSON: the event fields plus `id`, without `sig`.
    public var jsonString: String {
        var w = JSONWriter()
        var first = true
        w.byte(UInt8(ascii: "{"))
        w.key("id", first: &first); w.string(id.hex)
        w.key("pubkey", first: &first); w.string(pubkey.hex)
        w.key("created_at", first: &first); w.integer(createdAt)
        w.key("kind", first: &first); w.integer(kind.rawValue)
        w.key("tags", first: &first); w.tags(tags)
        w.key("content", first: &first); w.string(content)
        w.byte(UInt8(ascii: "}"))
        return w.string
    }
}

/// The fields shared by events and rumors, read strictly from a JSON object.
struct EventFields {
    let pubkey: PublicKey
    let createdAt: Int64
    let kind: Kind
    let tags: [Tag]
    let content: String

    init(_ object: [String: JSONValue], expectedPubkey: PublicKey? = nil) throws {
        guard let pk = object["pubkey"] else { throw EventError.malformed("missing pubkey") }
        let pkText = try Self.string(pk, "pubkey")
        if let expectedPubkey, pkText == expectedPubkey.hex {
            pubkey = expectedPubkey
        } else {
            do { pubkey = try PublicKey(hex: pkText) } catch { throw EventError.malformed("pubkey: \(error)") }
        }

        guard let created = object["created_at"] else { throw EventError.malformed("missing created_at") }
        guard let seconds = created.int64Value, seconds >= 0 else {
            throw EventError.malformed("created_at must be a non-negative integer")
        }
        createdAt = seconds

        guard let kindValue = object["kind"] else { throw EventError.malformed("missing kind") }
        guard let k = kindValue.int64Value, let k16 = UInt16(exactly: k) else {
            throw EventError.malformed("kind must be an integer in 0...65535")
        }
        kind = Kind(rawValue: k16)

        guard let tagsValue = object["tags"] else { throw EventError.malformed("missing tags") }
        tags = try Self.tags(tagsValue)

        guard let contentValue = object["content"] else { throw EventError.malformed("missing content") }
        content = try Self.string(contentValue, "content")
    }

    static func string(_ value: JSONValue, _ field: String) throws -> String {
        guard let s = value.stringValue else { throw EventError.malformed("\(field) must be a string") }
        return s
    }

    static func tags(_ value: JSONValue) throws -> [Tag] {
        guard let list = value.arrayValue else { throw EventError.malformed("tags must be an array") }
        return try list.map { item in
            guard let fields = item.arrayValue else { throw EventError.malformed("each tag must be an array") }
            return Tag(try fields.map { field in
                guard let s = field.stringValue else { throw EventError.malformed("tag elements must be strings") }
                return s
            })
        }
    }
}
