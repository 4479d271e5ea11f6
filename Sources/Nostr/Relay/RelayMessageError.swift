/// Errors from parsing NIP-01 relay wire messages (either direction).
public enum RelayMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not JSON, or not an array whose first element is a string label.
    case malformed(String)
    /// The label is not a message type this side understands.
    case unknownType(String)
    /// A subscription id is empty or longer than 64 characters.
    case invalidSubscriptionID(String)
    /// An embedded event is malformed or (when verification was requested) does not verify.
    case invalidEvent(EventError)

    public var description: String {
        switch self {
        case .malformed(let why): "relay message: malformed: \(why)"
        case .unknownType(let t): "relay message: unknown type \(t.debugDescription)"
        case .invalidSubscriptionID(let s): "relay message: invalid subscription id \(s.debugDescription)"
        case .invalidEvent(let e): "relay message: \(e)"
        }
    }
}

/// Shared helpers for reading wire-message arrays.
enum WireMessage {
    /// Parses text into the array form `["LABEL", …]`.
    static func array(_ text: String) throws -> (label: String, items: [JSONValue]) {
        let value: JSONValue
        do { value = try JSONValue.parse(text) } catch { throw RelayMessageError.malformed(error.description) }
        guard let items = value.arrayValue, let label = items.first?.stringValue else {
            throw RelayMessageError.malformed("expected a JSON array starting with a string")
        }
        return (label, items)
    }

    static func requireCount(_ items: [JSONValue], atLeast n: Int, _ label: String) throws {
        guard items.count >= n else { throw RelayMessageError.malformed("\(label) needs at least \(n - 1) elements after the label") }
    }

    static func string(_ value: JSONValue, _ what: String) throws -> String {
        guard let s = value.stringValue else { throw RelayMessageError.malformed("\(what) must be a string") }
        return s
    }

    static func subscription(_ value: JSONValue) throws -> SubscriptionID {
        let s = try string(value, "subscription id")
        let id = SubscriptionID(s)
        guard id.isValid else { throw RelayMessageError.invalidSubscriptionID(s) }
        return id
    }

    static func event(_ value: JSONValue, verify: Bool) throws -> Event {
        do { return try Event(jsonValue: value, verify: verify) } catch let e as EventError { throw RelayMessageError.invalidEvent(e) }
    }
}
