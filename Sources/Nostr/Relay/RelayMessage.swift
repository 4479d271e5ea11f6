/// A message from a relay to a client (NIP-01, NIP-42 `AUTH`).
public enum RelayMessage: Sendable, Hashable {
    /// `["EVENT", <sub id>, <event>]`: an event matching a subscription.
    case event(SubscriptionID, Event)
    /// `["OK", <event id>, <accepted>, <message>]`: the verdict on a published event.
    case ok(EventID, accepted: Bool, message: String)
    /// `["EOSE", <sub id>]`: end of stored events for a subscription.
    case eose(SubscriptionID)
    /// `["CLOSED", <sub id>, <message>]`: the relay ended a subscription.
    case closed(SubscriptionID, message: String)
    /// `["NOTICE", <message>]`: human-readable information.
    case notice(String)
    /// `["AUTH", <challenge>]`: NIP-42 authentication challenge.
    case auth(challenge: String)

    /// Compact JSON text.
    public var jsonString: String {
        var w = JSONWriter()
        let comma = UInt8(ascii: ",")
        w.byte(UInt8(ascii: "["))
        switch self {
        case .event(let sub, let e):
            w.string("EVENT"); w.byte(comma); w.string(sub.rawValue); w.byte(comma); e.write(to: &w)
        case .ok(let id, let accepted, let message):
            w.string("OK"); w.byte(comma); w.string(id.hex); w.byte(comma); w.bool(accepted); w.byte(comma); w.string(message)
        case .eose(let sub):
            w.string("EOSE"); w.byte(comma); w.string(sub.rawValue)
        case .closed(let sub, let message):
            w.string("CLOSED"); w.byte(comma); w.string(sub.rawValue); w.byte(comma); w.string(message)
        case .notice(let message):
            w.string("NOTICE"); w.byte(comma); w.string(message)
        case .auth(let challenge):
            w.string("AUTH"); w.byte(comma); w.string(challenge)
        }
        w.byte(UInt8(ascii: "]"))
        return w.string
    }

    /// Parses a relay message. Embedded events are verified (id and signature) unless
    /// `verifyEvents` is false, since a client must not trust relays. A missing message in `OK` or
    /// `CLOSED` is read as "" for leniency toward relays that omit it.
    public init(json: String, verifyEvents: Bool = true) throws {
        let (label, items) = try WireMessage.array(json)
        switch label {
        case "EVENT":
            try WireMessage.requireCount(items, atLeast: 3, label)
            self = .event(try WireMessage.subscription(items[1]), try WireMessage.event(items[2], verify: verifyEvents))
        case "OK":
            try WireMessage.requireCount(items, atLeast: 3, label)
            let idText = try WireMessage.string(items[1], "OK event id")
            guard let id = try? EventID(hex: idText) else { throw RelayMessageError.malformed("OK event id is not 64 lower-case hex") }
            guard let accepted = items[2].boolValue else { throw RelayMessageError.malformed("OK status must be a boolean") }
            let message = items.count > 3 ? try WireMessage.string(items[3], "OK message") : ""
            self = .ok(id, accepted: accepted, message: message)
        case "EOSE":
            try WireMessage.requireCount(items, atLeast: 2, label)
            self = .eose(try WireMessage.subscription(items[1]))
        case "CLOSED":
            try WireMessage.requireCount(items, atLeast: 2, label)
            let message = items.count > 2 ? try WireMessage.string(items[2], "CLOSED message") : ""
            self = .closed(try WireMessage.subscription(items[1]), message: message)
        case "NOTICE":
            try WireMessage.requireCount(items, atLeast: 2, label)
            self = .notice(try WireMessage.string(items[1], "NOTICE message"))
        case "AUTH":
            try WireMessage.requireCount(items, atLeast: 2, label)
            self = .auth(challenge: try WireMessage.string(items[1], "AUTH challenge"))
        default:
            throw RelayMessageError.unknownType(label)
        }
    }
}

/// Machine-readable prefixes for `OK` and `CLOSED` messages (NIP-01), e.g. `"invalid: bad signature"`.
public struct RelayReason: RawRepresentable, Sendable, Hashable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let duplicate = RelayReason(rawValue: "duplicate")
    public static let pow = RelayReason(rawValue: "pow")
    public static let blocked = RelayReason(rawValue: "blocked")
    public static let rateLimited = RelayReason(rawValue: "rate-limited")
    public static let invalid = RelayReason(rawValue: "invalid")
    public static let restricted = RelayReason(rawValue: "restricted")
    public static let mute = RelayReason(rawValue: "mute")
    public static let error = RelayReason(rawValue: "error")
    public static let authRequired = RelayReason(rawValue: "auth-required")

    /// `"<prefix>: <text>"`.
    public func message(_ text: String) -> String { "\(rawValue): \(text)" }

    /// The prefix of a relay message, if it has the `word: ` form.
    public static func parse(_ message: String) -> RelayReason? {
        guard let colon = message.firstIndex(of: ":") else { return nil }
        let prefix = message[..<colon]
        guard !prefix.isEmpty, !prefix.contains(" ") else { return nil }
        return RelayReason(rawValue: String(prefix))
    }
}
