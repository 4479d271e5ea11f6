import Foundation

/// Component 0x0001: `varint(2·n) ‖ u16 ids`, strictly ascending (draft-ietf-mls-extensions
/// ComponentsList; MDK `decode_components_list`). In a leaf it lists supported components; in the
/// GroupContext the required ones.
public struct ComponentsList: Hashable, Sendable {
    /// Ascending, unique.
    public let ids: [UInt16]

    public init<S: Sequence>(_ ids: S) where S.Element == UInt16 { self.ids = Array(Set(ids)).sorted() }

    public var bytes: [UInt8] {
        var out: [UInt8] = []
        QUICVarint.encode(UInt64(ids.count * 2), into: &out)
        for id in ids { out.append(contentsOf: [UInt8(id >> 8), UInt8(id & 0xff)]) }
        return out
    }

    public init(bytes: [UInt8]) throws(V2ComponentError) {
        var cursor = bytes[...]
        let length = try QUICVarint.decode(&cursor)
        guard UInt64(cursor.count) == length else {
            throw UInt64(cursor.count) < length ? .truncated("component list") : .trailingBytes("component list")
        }
        guard length % 2 == 0 else { throw .oddComponentListLength }
        var ids: [UInt16] = []
        var index = cursor.startIndex
        while index < cursor.endIndex {
            let id = UInt16(cursor[index]) << 8 | UInt16(cursor[index + 1])
            if ids.contains(id) { throw .duplicateComponent(id) }
            if let last = ids.last, id < last { throw .unsortedComponents }
            ids.append(id)
            index += 2
        }
        self.ids = ids
    }

    public func contains(_ id: UInt16) -> Bool { ids.contains(id) }
}
