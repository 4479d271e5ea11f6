/// NIP-59 gift wrapping: rumor → seal (kind 13, signed by the author) → gift wrap (kind 1059, signed by
/// a throwaway key), each layer NIP-44 encrypted to the recipient, with back-dated timestamps.
public enum GiftWrap {
    /// How far back seal and wrap timestamps are randomly moved (NIP-59 suggests up to two days).
    public static let maxBackdate: Int64 = 2 * 24 * 60 * 60

    /// A successfully opened gift wrap.
    public struct Unwrapped: Sendable, Hashable {
        /// The inner unsigned event; its author is authenticated by the seal signature.
        public let rumor: UnsignedEvent
        /// The verified seal (its `pubkey` is the sender).
        public let seal: Event
        /// The verified outer wrap.
        public let wrap: Event

        /// The authenticated sender.
        public var sender: PublicKey { seal.pubkey }
    }

    /// Values that are random in production; tests fix them to reproduce known outputs.
    struct Overrides: Sendable {
        var ephemeralKeys: Keys?
        var sealCreatedAt: Int64?
        var wrapCreatedAt: Int64?
        var sealNonce: [UInt8]?
        var wrapNonce: [UInt8]?
        var now: Int64?
    }

    /// Wraps `rumor` from `author` to `recipient`; `wrapTags` are added after the recipient's `p` tag.
    public static func wrap(_ rumor: UnsignedEvent, author: Keys, recipient: PublicKey, wrapTags: [Tag] = []) throws -> Event {
        try wrap(rumor, author: author, recipient: recipient, wrapTags: wrapTags, overrides: Overrides())
    }

    static func wrap(_ rumor: UnsignedEvent, author: Keys, recipient: PublicKey, wrapTags: [Tag] = [],
                     overrides: Overrides) throws -> Event {
        let seal = try seal(rumor, author: author, recipient: recipient, overrides: overrides)
        return try wrap(seal: seal, recipient: recipient, wrapTags: wrapTags, overrides: overrides)
    }

    /// Builds the kind 13 seal: the rumor JSON encrypted from author to recipient, empty tags, signed.
    static func seal(_ rumor: UnsignedEvent, author: Keys, recipient: PublicKey, overrides: Overrides) throws -> Event {
        guard rumor.pubkey == author.publicKey else { throw GiftWrapError.rumorNotByAuthor }
        let key = NIP44.ConversationKey(secretKey: author.secretKey, publicKey: recipient)
        let content = try NIP44.encrypt(bytes: Array(rumor.jsonString.utf8), conversationKey: key,
                                        nonce: overrides.sealNonce ?? SecureRandom.bytes(32))
        let createdAt = overrides.sealCreatedAt ?? randomPast(now: overrides.now)
        return try UnsignedEvent(pubkey: author.publicKey, createdAt: createdAt, kind: .seal, tags: [], content: content)
            .signed(with: author)
    }

    /// Builds the kind 1059 wrap around a seal, signed by a fresh throwaway key.
    static func wrap(seal: Event, recipient: PublicKey, wrapTags: [Tag], overrides: Overrides) throws -> Event {
        let ephemeral = overrides.ephemeralKeys ?? Keys.generate()
        let key = NIP44.ConversationKey(secretKey: ephemeral.secretKey, publicKey: recipient)
        let content = try NIP44.encrypt(bytes: Array(seal.jsonString.utf8), conversationKey: key,
                                        nonce: overrides.wrapNonce ?? SecureRandom.bytes(32))
        let createdAt = overrides.wrapCreatedAt ?? randomPast(now: overrides.now)
        return try UnsignedEvent(pubkey: ephemeral.publicKey, createdAt: createdAt, kind: .giftWrap,
                                 tags: [.pubkey(recipient)] + wrapTags, content: content)
            .signed(with: ephemeral)
    }

    /// Opens a gift wrap addressed to `recipient`, verifying both signatures and that the seal's signer
    /// is the rumor's author.
    public static func unwrap(_ wrap: Event, recipient: SecretKey) throws -> Unwrapped {
        guard wrap.kind == .giftWrap else { throw GiftWrapError.notGiftWrap(wrap.kind) }
        do { try wrap.verify() } catch let e as EventError { throw GiftWrapError.invalidWrap(e) }

        let sealJSON: String
        do {
            sealJSON = try NIP44.decrypt(wrap.content, conversationKey: .init(secretKey: recipient, publicKey: wrap.pubkey))
        } catch let e as NIP44Error { throw GiftWrapError.wrapDecryption(e) }
        let seal: Event
        do { seal = try Event(json: sealJSON, verify: true) } catch let e as EventError { throw GiftWrapError.invalidSeal(e) }
        guard seal.kind == .seal else { throw GiftWrapError.malformedSeal("kind \(seal.kind) is not 13") }
        guard seal.tags.isEmpty else { throw GiftWrapError.malformedSeal("seal tags must be empty") }

        let rumorJSON: String
        do {
            rumorJSON = try NIP44.decrypt(seal.content, conversationKey: .init(secretKey: recipient, publicKey: seal.pubkey))
        } catch let e as NIP44Error { throw GiftWrapError.sealDecryption(e) }
        let rumor: UnsignedEvent
        do { rumor = try UnsignedEvent(json: rumorJSON) } catch let e as EventError { throw GiftWrapError.invalidRumor(e) }
        guard rumor.pubkey == seal.pubkey else { throw GiftWrapError.authorMismatch(seal: seal.pubkey, rumor: rumor.pubkey) }
        return Unwrapped(rumor: rumor, seal: seal, wrap: wrap)
    }

    /// A timestamp uniformly up to `maxBackdate` seconds before now.
    static func randomPast(now: Int64?) -> Int64 {
        (now ?? UnsignedEvent.now()) - SecureRandom.integer(in: 0...maxBackdate)
    }
}
