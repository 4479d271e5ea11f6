import Foundation
import MarmotCore

/// The versioned JSON contract between the core and renderers outside Swift (docs/ffi-contract.md).
///
/// Why: a C ABI, a browser or a JVM cannot share Swift enums, so `AppState`, `AppUpdate` and
/// `AppAction` cross as JSON objects whose enum cases are tagged with `"type"`, identifiers are
/// strings and every top-level object carries `schemaVersion`. The mapping lives here so the core's
/// types stay untouched; it is explicit (no synthesized Codable) so the wire shape is exactly the
/// documented one, with `null` written for absent values.
public enum ContractJSON {
    /// The contract's version: bumped on any change that an existing renderer could misread.
    public static let schemaVersion = 1

    /// A JSON object as Foundation serializes it.
    public typealias Object = [String: Any]

    /// Serializes `object` with sorted keys (stable output for tests and diffs).
    public static func string(_ object: Object) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
            let text = String(data: data, encoding: .utf8)
        else { return "{}" }
        return text
    }

    /// `value` or JSON `null`.
    static func orNull(_ value: Any?) -> Any { value ?? NSNull() }
}
