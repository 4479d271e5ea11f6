import Foundation
import MLS
import Nostr

/// A received Welcome: a gift wrap opened with our identity key whose kind-444 rumor passed MDK
/// 0.8.0's checks (MIP-02; marmot-wire §4.3). Joining (decrypting the GroupInfo, the ratchet tree
/// and the 0xF2EE data) is the MLS group layer's job.
public struct IncomingWelcome: Sendable, Hashable {
    /// The gift wrap's id: the key MDK records the Welcome under (`wrapper_event_id`).
    public let wrapID: EventID
    /// The authenticated rumor.
    public let rumor: UnsignedEvent
    /// Who invited us: the seal's signer, equal to the rumor's pubkey.
    public let sender: PublicKey
    public let welcome: Welcome
    /// The group's relays from the `relays` tag.
    public let relays: [RelayURL]
    /// The `e` tag value as sent; MDK only requires it to be non-empty and never uses it for lookup.
    public let keyPackageEventReference: String
    /// The `client` tag, if any.
    public let client: String?

    /// The `e` tag as an event id, when it is one (it is for MDK senders).
    public var keyPackageEventID: EventID? { try? EventID(hex: keyPackageEventReference.lowercased()) }

    /// Opens a kind-1059 gift wrap addressed to `recipient` and validates the Welcome inside.
    public init(giftWrap: Event, recipient: SecretKey) throws(WelcomeRumorError) {
        let unwrapped: GiftWrap.Unwrapped
        do { unwrapped = try GiftWrap.unwrap(giftWrap, recipient: recipient) } catch let error as GiftWrapError {
            throw .giftWrap(error)
        } catch {
            throw .giftWrap(.invalidWrap(.malformed("\(error)")))
        }
        try self.init(rumor: unwrapped.rumor, wrapID: giftWrap.id, sender: unwrapped.sender)
    }

    /// Validates a rumor already taken out of its gift wrap; `sender` is the seal's signer.
    public init(rumor: UnsignedEvent, wrapID: EventID, sender: PublicKey) throws(WelcomeRumorError) {
        guard rumor.pubkey == sender else { throw .authorMismatch(rumor: rumor.pubkey, seal: sender) }
        guard rumor.kind == .welcome else { throw .wrongKind(rumor.kind) }
        guard rumor.tags.count >= 3 else { throw .tooFewTags(rumor.tags.count) }

        var relays: [RelayURL]?
        var reference: String?
        var client: String?
        var hasEncoding = false
        for tag in rumor.tags {
            switch tag.name {
            case "relays":
                let values = Array(tag.fields.dropFirst())
                guard !values.isEmpty else { continue }
                var parsed: [RelayURL] = []
                for value in values {
                    do { parsed.append(try RelayURL(value)) } catch { throw .invalidRelay(value) }
                }
                if relays == nil { relays = parsed }
            case "e":
                if reference == nil, let value = tag.value, !value.isEmpty { reference = value }
            case "client":
                guard let value = tag.value, !value.isEmpty else { throw .emptyClient }
                if client == nil { client = value }
            case "encoding":
                guard tag.value == "base64" else { throw .unsupportedEncoding(tag.value ?? "") }
                hasEncoding = true
            default:
                break
            }
        }
        guard let relays else { throw .missingRelays }
        guard let reference else { throw .missingKeyPackageEventReference }
        guard hasEncoding else { throw .missingEncoding }

        guard let bytes = Base64.decode(rumor.content) else { throw .invalidContent("not standard padded base64") }
        let message: MLSMessage
        do { message = try MLSMessage(tlsSerialized: bytes) } catch { throw .invalidContent("not an MLSMessage: \(error)") }
        guard case .welcome(let welcome) = message.body else { throw .notAWelcome(message.wireFormat) }
        guard welcome.cipherSuite == .mls128X25519AES128GCMSHA256Ed25519 else {
            throw .unsupportedCipherSuite(welcome.cipherSuite.rawValue)
        }

        self.wrapID = wrapID
        self.rumor = rumor
        self.sender = sender
        self.welcome = welcome
        self.relays = relays
        self.keyPackageEventReference = reference
        self.client = client
    }

    /// The rumor's id (MDK's welcome event id).
    public var rumorID: EventID { rumor.id }

    /// Whether the Welcome has an entry for the KeyPackage with this ref (one of ours).
    public func isAddressed(to ref: KeyPackageRef) -> Bool { welcome.secrets(for: ref) != nil }
}

/// Why a gift wrap does not hold an acceptable Welcome (MIP-02; marmot-wire §4.3).
public enum WelcomeRumorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The gift wrap or seal could not be opened or verified.
    case giftWrap(GiftWrapError)
    /// The rumor's pubkey differs from the seal's signer.
    case authorMismatch(rumor: PublicKey, seal: PublicKey)
    /// The rumor is not kind 444.
    case wrongKind(Kind)
    /// Fewer than three tags.
    case tooFewTags(Int)
    /// No `relays` tag with at least one value.
    case missingRelays
    /// A relay value is not a ws/wss URL.
    case invalidRelay(String)
    /// No `e` tag with a non-empty value.
    case missingKeyPackageEventReference
    /// A `client` tag without a value.
    case emptyClient
    /// An `encoding` tag whose value is not exactly `base64`.
    case unsupportedEncoding(String)
    /// No `encoding` tag.
    case missingEncoding
    /// Content is not base64 of a TLS MLSMessage.
    case invalidContent(String)
    /// The MLSMessage is not a Welcome.
    case notAWelcome(WireFormat)
    /// The Welcome's cipher suite is not 0x0001.
    case unsupportedCipherSuite(UInt16)

    public var description: String {
        switch self {
        case .giftWrap(let e): "welcome: \(e)"
        case .authorMismatch(let r, let s): "welcome: rumor by \(r) sealed by \(s)"
        case .wrongKind(let k): "welcome: kind \(k) is not 444"
        case .tooFewTags(let n): "welcome: \(n) tags, at least 3 required"
        case .missingRelays: "welcome: no relays tag with a relay"
        case .invalidRelay(let v): "welcome: relay \(v.prefix(80)) is not a ws/wss URL"
        case .missingKeyPackageEventReference: "welcome: no e tag with a value"
        case .emptyClient: "welcome: client tag without a value"
        case .unsupportedEncoding(let v): "welcome: encoding \(v.prefix(20)) is not base64"
        case .missingEncoding: "welcome: no encoding tag"
        case .invalidContent(let why): "welcome: content: \(why)"
        case .notAWelcome(let f): "welcome: MLSMessage wire format \(f) is not a Welcome"
        case .unsupportedCipherSuite(let s): "welcome: cipher suite \(s) is not 0x0001"
        }
    }
}
