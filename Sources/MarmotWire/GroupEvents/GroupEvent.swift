import Foundation
import Nostr

/// Building and accepting kind-445 group events (MIP-03 as MDK 0.8.0; marmot-wire §5.1, §5.5).
///
/// Outgoing: tags `["h", <nostr_group_id hex>]`, `["encoding","base64"]` and optionally a NIP-40
/// `expiration`; content from `GroupEventCipher`; signed by a key made for this event alone and then
/// dropped, so events do not link to their author; created_at is the honest current time, which the
/// competing-commit rule (§5.7) relies on.
public enum GroupEvent {
    /// The accepted created_at window around the receiver's clock (MDK defaults: 45 days back,
    /// 300 seconds ahead).
    public struct TimeWindow: Sendable, Hashable {
        public var maxAge: Int64
        public var maxFutureSkew: Int64

        public init(maxAge: Int64, maxFutureSkew: Int64) {
            self.maxAge = maxAge
            self.maxFutureSkew = maxFutureSkew
        }

        public static let mdkDefault = TimeWindow(maxAge: 45 * 24 * 3600, maxFutureSkew: 300)
    }

    /// The longest kind-445 content accepted or built (base64 characters), checked before anything
    /// else, the signature included: any relay that serves a group, and anyone who knows its `h`,
    /// can send signed events of up to a relay's frame limit, and each one was verified, decrypted
    /// with every epoch key and parked (surface review 2026-12-01, N2). MDK 0.9.14 has no bound of
    /// its own here (its peeler checks only a minimum length); MLS messages are small: a commit
    /// adding members carries about 0.6 KB per member (KeyPackage by value plus its UpdatePath
    /// ciphertext), so 128 KiB of base64 holds one that adds about 150 members at once, and a
    /// text message's rumor is bounded by NIP-44's 64 KiB long before this.
    public static let maxContentLength = 128 * 1024

    /// Builds and signs the kind-445 event carrying `mlsMessage` (a serialized MLSMessage).
    public static func build(
        mlsMessage: Data, nostrGroupID: NostrGroupID, key: GroupEventKey, createdAt: Int64 = UnsignedEvent.now(),
        expiration: Int64? = nil
    ) throws -> Event {
        var tags: [Tag] = [Tag(["h", nostrGroupID.hex]), Tag(["encoding", "base64"])]
        if let expiration { tags.append(Tag(["expiration", String(expiration)])) }
        return try build(mlsMessage: mlsMessage, tags: tags, key: key, createdAt: createdAt)
    }

    /// Builds the event with the given tags (each protocol version has its own tag set), signed by a
    /// key made for this event alone.
    package static func build(mlsMessage: Data, tags: [Tag], key: GroupEventKey, createdAt: Int64) throws -> Event {
        let content = try GroupEventCipher.encrypt(mlsMessage, key: key)
        // Receivers drop anything longer before reading it: refused here instead of sent for nothing.
        guard content.utf8.count <= maxContentLength else { throw GroupEventError.contentTooLong(content.utf8.count) }
        let signer = Keys.generate()
        return try UnsignedEvent(pubkey: signer.publicKey, createdAt: createdAt, kind: .groupMessage, tags: tags,
                                 content: content).signed(with: signer)
    }

    /// Checks an incoming event's envelope before any group lookup: kind 445, created_at inside the
    /// window, exactly one `h` tag of 64 hex characters and the `["encoding","base64"]` tag; by default
    /// also its NIP-01 id and signature (MDK leaves that to its relay SDK).
    public static func validate(
        _ event: Event, now: Int64 = UnsignedEvent.now(), window: TimeWindow = .mdkDefault,
        verifySignature: Bool = true
    ) throws(GroupEventError) -> ValidatedGroupEvent {
        try checkCommon(event, now: now, window: window, verifySignature: false)
        let hTags = event.tags.tags(named: "h")
        guard let hTag = hTags.first else { throw .missingGroupTag }
        guard hTags.count == 1 else { throw .multipleGroupTags(hTags.count) }
        let hValue = hTag.value ?? ""
        guard let groupID = try? NostrGroupID(hex: hValue) else { throw .invalidGroupTag(hValue) }

        guard event.tags.contains(where: { $0.name == "encoding" && $0.value == "base64" }) else {
            throw .unsupportedEncoding
        }
        if verifySignature { try verify(event) }
        return ValidatedGroupEvent(event: event, nostrGroupID: groupID)
    }

    /// The checks every protocol version makes on a kind-445 envelope: the kind, the content's
    /// length (`maxContentLength`, before any other work), created_at inside
    /// the window when there is one (v1), and, with `verifySignature`, the NIP-01 id and signature.
    package static func checkCommon(
        _ event: Event, now: Int64, window: TimeWindow?, verifySignature: Bool = true
    ) throws(GroupEventError) {
        guard event.kind == .groupMessage else { throw .wrongKind(event.kind) }
        guard event.content.utf8.count <= maxContentLength else { throw .contentTooLong(event.content.utf8.count) }
        guard let window else {
            if verifySignature { try verify(event) }
            return
        }
        let latest = now + window.maxFutureSkew
        guard event.createdAt <= latest else { throw .tooFarInFuture(createdAt: event.createdAt, latestAccepted: latest) }
        let oldest = now - window.maxAge
        guard event.createdAt >= oldest else { throw .tooOld(createdAt: event.createdAt, oldestAccepted: oldest) }
        if verifySignature { try verify(event) }
    }

    private static func verify(_ event: Event) throws(GroupEventError) {
        do { try event.verify() } catch let error as EventError { throw .invalidEvent(error) } catch {
            throw .invalidEvent(.invalidSignature)
        }
    }
}

/// A kind-445 event whose envelope passed `GroupEvent.validate`; the group is looked up by
/// `nostrGroupID`, then the content is decrypted with that group's epoch keys.
public struct ValidatedGroupEvent: Sendable, Hashable {
    public let event: Event
    public let nostrGroupID: NostrGroupID

    /// Wraps an event whose envelope a version's rules checked (v2 reads its `h` tag itself).
    package init(event: Event, nostrGroupID: NostrGroupID) {
        self.event = event
        self.nostrGroupID = nostrGroupID
    }

    public var eventID: EventID { event.id }
    public var createdAt: Int64 { event.createdAt }

    /// Decrypts the content to a serialized MLSMessage.
    public func decrypt(with key: GroupEventKey) throws(GroupEventError) -> Data {
        try GroupEventCipher.decrypt(event.content, key: key)
    }

    /// Tries `keys` in order (current epoch first, then up to five past epochs, as MDK does) and
    /// returns the plaintext with the index of the key that opened it.
    public func decrypt(tryingKeys keys: [GroupEventKey]) throws(GroupEventError) -> (plaintext: Data, keyIndex: Int) {
        let sealed = try GroupEventCipher.decode(event.content)
        for (index, key) in keys.enumerated() {
            if let plaintext = try? GroupEventCipher.open(sealed, key: key) { return (plaintext, index) }
        }
        MarmotLog.groupEvents.debug("kind-445 \(event.id.hex) did not decrypt with \(keys.count) epoch keys")
        throw .decryptionFailed
    }
}
