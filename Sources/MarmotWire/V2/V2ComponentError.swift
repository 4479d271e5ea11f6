import Foundation

/// Why a Marmot v2 component's bytes are malformed (app-components/*.md; MDK 0.9.14 codecs).
public enum V2ComponentError: Error, Sendable, Equatable, CustomStringConvertible {
    case truncated(String)
    case nonMinimalVarint
    case trailingBytes(String)
    case tooLong(String, max: Int)
    case notUTF8(String)
    case oddComponentListLength
    case duplicateComponent(UInt16)
    case unsortedComponents
    case emptyAdminPolicy
    case adminPolicyLength
    case unsortedAdmins
    case invalidAdminKey
    case noRelays
    case tooManyRelays(Int)
    case duplicateRelay
    case unsortedRelays
    case invalidRelayURL(String)
    case unknownLifecycleState(UInt8)
    case wrongLength(String, expected: Int, actual: Int)
    case invalidMediaPolicy(String)
    /// Component 0x8002 or 0x8007 is malformed (MDK `blossom_image.rs`, `avatar_url.rs`).
    case invalidGroupImage(String)

    public var description: String {
        switch self {
        case .truncated(let what): "\(what) is truncated"
        case .nonMinimalVarint: "QUIC varint is not minimally encoded"
        case .trailingBytes(let what): "\(what) has trailing bytes"
        case .tooLong(let what, let max): "\(what) exceeds \(max) bytes"
        case .notUTF8(let what): "\(what) is not UTF-8"
        case .oddComponentListLength: "component list byte length is odd"
        case .duplicateComponent(let id): "component 0x\(String(id, radix: 16)) listed twice"
        case .unsortedComponents: "component list is not sorted"
        case .emptyAdminPolicy: "admin policy has no admin"
        case .adminPolicyLength: "admin policy length is not a multiple of 32"
        case .unsortedAdmins: "admin keys are not sorted and unique"
        case .invalidAdminKey: "admin key is not an x-only secp256k1 key"
        case .noRelays: "routing has no relay"
        case .tooManyRelays(let n): "routing has \(n) relays, at most 16"
        case .duplicateRelay: "routing lists a relay twice"
        case .unsortedRelays: "routing relays are not byte-sorted"
        case .invalidRelayURL(let why): "routing relay URL invalid: \(why)"
        case .unknownLifecycleState(let b): "lifecycle state \(b) is unknown"
        case .wrongLength(let what, let e, let a): "\(what) must be \(e) bytes, got \(a)"
        case .invalidMediaPolicy(let why): "encrypted media policy (0x800b): \(why)"
        case .invalidGroupImage(let why): "group image component: \(why)"
        }
    }
}
