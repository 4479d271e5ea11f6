import Nostr

/// Relay-to-client messages built around an event's already-serialized JSON.
///
/// Stored events are served as the JSON written when they were accepted, so fan-out and queries do
/// not re-encode the event for every subscriber.
enum RelayWire {
    /// `["EVENT", <sub>, <event json>]`.
    static func event(_ sub: SubscriptionID, json: String) -> String {
        var writer = JSONWriter()
        writer.string(sub.rawValue)
        return "[\"EVENT\"," + writer.string + "," + json + "]"
    }

    static func ok(_ id: EventID, accepted: Bool, _ message: String) -> String {
        RelayMessage.ok(id, accepted: accepted, message: message).jsonString
    }

    static func eose(_ sub: SubscriptionID) -> String { RelayMessage.eose(sub).jsonString }

    static func closed(_ sub: SubscriptionID, _ message: String) -> String {
        RelayMessage.closed(sub, message: message).jsonString
    }

    /// `["AUTH", <challenge>]` (NIP-42).
    static func auth(challenge: String) -> String { RelayMessage.auth(challenge: challenge).jsonString }

    static func notice(_ message: String) -> String { RelayMessage.notice(message).jsonString }
}
