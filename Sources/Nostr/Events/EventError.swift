/// Errors from decoding or verifying a NIP-01 event.
public enum EventError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `id` is not the SHA-256 of the event's canonical serialization.
    case invalidID
    /// The `sig` does not verify against `pubkey` and `id`.
    case invalidSignature
    /// The JSON is not an event: a field is missing, of the wrong type or length, or not lower-case hex.
    case malformed(String)

    public var description: String {
        switch self {
        case .invalidID: "event: id does not match the content"
        case .invalidSignature: "event: signature does not verify"
        case .malformed(let why): "event: malformed: \(why)"
        }
    }
}
