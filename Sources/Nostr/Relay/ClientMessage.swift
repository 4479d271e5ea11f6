/// A message from a client to a relay (NIP-01, NIP-42 `AUTH`).
public enum ClientMessage: Sendable, Hashable {
    /// `["EVENT", <event>]`: publish an event.
    case event(Event)
    /// `["REQ", <sub id>, <filter>…]`: subscribe.
    case req(SubscriptionID, [Filter])
    /// `["CLOSE", <sub id>]`: end a subscription.
    case close(SubscriptionID)
    /// `["AUTH", <kind 22242 event>]`: NIP-42 authentication response.
    case auth(Event)

    /// Compact JSON text.
    public var jsonString: String {
        var w = JSONWriter()
        w.byte(UInt8(ascii: "["))
        switch self {
        case .event(let e):
            w.string("EVENT"); w.byte(UInt8(ascii: ",")); e.write(to: &w)
        case .req(let sub, let filters):
            w.string("REQ"); w.byte(UInt8(ascii: ",")); w.string(sub.rawValue)
            for f in filters { w.byte(UInt8(ascii: ",")); f.write(to: &w) }
        case .close(let sub):
            w.string("CLOSE"); w.byte(UInt8(ascii: ",")); w.string(sub.rawValue)
        case .auth(let e):
            w.string("AUTH"); w.byte(UInt8(ascii: ",")); e.write(to: &w)
        }
        w.byte(UInt8(ascii: "]"))
        return w.string
    }

    /// Parses a client message.
    ///
    /// Embedded events are checked for structure only unless `verifyEvents` is true: a relay needs the
    /// id of an event with a bad signature to answer `OK false`, so it calls `Event.verify()` itself.
    /// A `REQ` needs at least one filter.
    public init(json: String, verifyEvents: Bool = false) throws {
        let (label, items) = try WireMessage.array(json)
        switch label {
        case "EVENT":
            try WireMessage.requireCount(items, atLeast: 2, label)
            self = .event(try WireMessage.event(items[1], verify: verifyEvents))
        case "REQ":
            try WireMessage.requireCount(items, atLeast: 3, label)
            let sub = try WireMessage.subscription(items[1])
            self = .req(sub, try items.dropFirst(2).map { try Filter(jsonValue: $0) })
        case "CLOSE":
            try WireMessage.requireCount(items, atLeast: 2, label)
            self = .close(try WireMessage.subscription(items[1]))
        case "AUTH":
            try WireMessage.requireCount(items, atLeast: 2, label)
            self = .auth(try WireMessage.event(items[1], verify: verifyEvents))
        default:
            throw RelayMessageError.unknownType(label)
        }
    }
}
