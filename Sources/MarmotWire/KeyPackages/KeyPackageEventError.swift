import MLS
import Nostr

/// Why a KeyPackage event could not be built or was rejected (MIP-00 as MDK 0.8.0; marmot-wire §2.5).
public enum KeyPackageEventError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Rule 1: neither kind 30443 nor 443.
    case wrongKind(Kind)
    /// A required tag is absent (`d`, `mls_protocol_version`, `mls_ciphersuite`, `mls_extensions`,
    /// `mls_proposals`, `relays`, `i`).
    case missingTag(String)
    /// Rule 2: the `d` value is not 64 hex characters.
    case invalidDTag(String)
    /// Rule 3: `mls_protocol_version` is not `1.0`.
    case unsupportedProtocolVersion(String)
    /// Rule 4: `mls_ciphersuite` is not `0x` + 4 hex digits.
    case malformedCipherSuite(String)
    /// Rule 4: a well-formed suite other than 0x0001.
    case unsupportedCipherSuite(String)
    /// Rule 5: `mls_extensions` has no value or a value that is not `0x` + 4 hex digits.
    case malformedExtensions(String)
    /// Rule 5: `mls_extensions` lacks LastResort (0x000a) or NostrGroupData (0xf2ee).
    case missingRequiredExtension(ExtensionType)
    /// Rule 6: `mls_proposals` is not exactly `["mls_proposals","0x000a"]`.
    case invalidProposals([String])
    /// Rule 7: `relays` has no value or one that is not a ws/wss URL.
    case invalidRelays(String)
    /// Rule 8: `i` does not carry exactly one non-empty hex value.
    case invalidRefTag([String])
    /// Rule 8: the `i` value is not the KeyPackageRef of the content.
    case refMismatch(tag: String, computed: String)
    /// Rule 9: no `["encoding","base64"]` tag.
    case missingEncoding
    /// The content is not base64 of one TLS KeyPackage.
    case invalidContent(String)
    /// Rule 10: the KeyPackage fails MLS validation.
    case invalidKeyPackage(KeyPackageValidationError)
    /// Rule 11: the credential is not basic with a 32-byte identity.
    case invalidCredential(String)
    /// Rule 11: the credential identity is not the event's author.
    case identityMismatch(credential: String, author: PublicKey)
    /// The event's NIP-01 id or signature does not verify.
    case invalidEvent(EventError)
    /// Building: no relay given (receivers require at least one).
    case noRelays

    public var description: String {
        switch self {
        case .wrongKind(let k): "key package event: kind \(k) is neither 30443 nor 443"
        case .missingTag(let t): "key package event: missing tag \(t)"
        case .invalidDTag(let v): "key package event: d tag \(v.prefix(80)) is not 64 hex characters"
        case .unsupportedProtocolVersion(let v): "key package event: protocol version \(v.prefix(20)) is not 1.0"
        case .malformedCipherSuite(let v): "key package event: cipher suite \(v.prefix(20)) is not 0x + 4 hex digits"
        case .unsupportedCipherSuite(let v): "key package event: cipher suite \(v) is not 0x0001"
        case .malformedExtensions(let v): "key package event: extension value \(v.prefix(20)) is not 0x + 4 hex digits"
        case .missingRequiredExtension(let t): "key package event: mls_extensions lacks \(t)"
        case .invalidProposals(let f): "key package event: mls_proposals \(f.prefix(4)) is not [\"0x000a\"]"
        case .invalidRelays(let why): "key package event: relays: \(why)"
        case .invalidRefTag(let f): "key package event: i tag \(f.prefix(4)) must hold one hex value"
        case .refMismatch(let t, let c): "key package event: i tag \(t.prefix(80)) is not the KeyPackageRef \(c)"
        case .missingEncoding: "key package event: no [\"encoding\",\"base64\"] tag"
        case .invalidContent(let why): "key package event: content: \(why)"
        case .invalidKeyPackage(let e): "key package event: \(e)"
        case .invalidCredential(let why): "key package event: credential: \(why)"
        case .identityMismatch(let c, let a): "key package event: credential identity \(c) is not the author \(a)"
        case .invalidEvent(let e): "key package event: \(e)"
        case .noRelays: "key package event: at least one relay is required"
        }
    }
}
