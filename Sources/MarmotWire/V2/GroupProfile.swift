import Foundation

/// Component 0x8001 `marmot.group.profile.v1`: `name<V> ‖ description<V>`, UTF-8 kept byte for
/// byte (no normalisation), name ≤ 256 B, description ≤ 4096 B (app-components/group-profile; MDK
/// `profile.rs`).
public struct GroupProfile: Hashable, Sendable {
    public static let maxNameBytes = 256
    public static let maxDescriptionBytes = 4096

    public let name: String
    public let description: String

    public init(name: String, description: String = "") throws(V2ComponentError) {
        guard name.utf8.count <= Self.maxNameBytes else { throw .tooLong("group profile name", max: Self.maxNameBytes) }
        guard description.utf8.count <= Self.maxDescriptionBytes else {
            throw .tooLong("group profile description", max: Self.maxDescriptionBytes)
        }
        self.name = name
        self.description = description
    }

    public var bytes: [UInt8] {
        var out: [UInt8] = []
        QUICVarint.encodeBytes(Array(name.utf8), into: &out)
        QUICVarint.encodeBytes(Array(description.utf8), into: &out)
        return out
    }

    public init(bytes: [UInt8]) throws(V2ComponentError) {
        var cursor = bytes[...]
        let name = try QUICVarint.decodeBytes(&cursor, maxLength: Self.maxNameBytes, label: "group profile name")
        let description = try QUICVarint.decodeBytes(
            &cursor, maxLength: Self.maxDescriptionBytes, label: "group profile description")
        guard cursor.isEmpty else { throw .trailingBytes("group profile") }
        guard let n = String(validating: name, as: UTF8.self) else { throw .notUTF8("group profile name") }
        guard let d = String(validating: description, as: UTF8.self) else { throw .notUTF8("group profile description") }
        self.name = n
        self.description = d
    }
}
