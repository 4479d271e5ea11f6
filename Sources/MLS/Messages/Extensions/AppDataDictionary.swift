import Foundation

extension ExtensionType {
    /// app_data_dictionary (draft-ietf-mls-extensions), the carrier of Marmot v2 components.
    public static let appDataDictionary = ExtensionType(rawValue: 0x0006)
}

/// The `app_data_dictionary` extension: ComponentData entries sorted by id, each id at most once
/// (draft-ietf-mls-extensions; Marmot v2 GroupContext, LeafNode and KeyPackage extensions).
///
/// Decoding rejects unsorted or repeated ids, so two members never read different states from one
/// dictionary; unknown components are kept byte for byte.
public struct AppDataDictionary: Hashable, Sendable, ExtensionPayload {
    public static let extensionType = ExtensionType.appDataDictionary

    /// Entries in strictly ascending component-id order.
    public private(set) var entries: [ComponentData]

    /// Builds a dictionary from entries in any order; a repeated id is an error.
    public init(_ entries: [ComponentData] = []) throws(AppDataDictionaryError) {
        let sorted = entries.sorted { $0.componentID < $1.componentID }
        try Self.checkOrder(sorted)
        self.entries = sorted
    }

    /// A dictionary from entries already in strictly ascending id order (checked by the caller).
    init(ascending entries: [ComponentData]) { self.entries = entries }

    /// The data of one component, or nil when absent.
    public subscript(componentID: UInt16) -> Data? {
        entries.first(where: { $0.componentID == componentID })?.data
    }

    /// The ids present, ascending.
    public var componentIDs: [UInt16] { entries.map(\.componentID) }

    /// Sets (inserts or replaces) one component, keeping the order.
    public mutating func set(_ componentID: UInt16, _ data: Data) {
        if let i = entries.firstIndex(where: { $0.componentID == componentID }) {
            entries[i].data = data
        } else {
            let at = entries.firstIndex(where: { $0.componentID > componentID }) ?? entries.endIndex
            entries.insert(ComponentData(componentID: componentID, data: data), at: at)
        }
    }

    /// Removes one component; returns whether it was present.
    @discardableResult
    public mutating func remove(_ componentID: UInt16) -> Bool {
        guard let i = entries.firstIndex(where: { $0.componentID == componentID }) else { return false }
        entries.remove(at: i)
        return true
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeVector { w in for entry in entries { w.write(entry) } }
    }

    public init(from reader: inout TLSReader) throws {
        let entries: [ComponentData] = try reader.readVector()
        try Self.checkOrder(entries)
        self.entries = entries
    }

    private static func checkOrder(_ entries: [ComponentData]) throws(AppDataDictionaryError) {
        for (previous, next) in zip(entries, entries.dropFirst()) {
            if previous.componentID == next.componentID { throw .duplicateComponent(next.componentID) }
            if previous.componentID > next.componentID { throw .unsortedComponents }
        }
    }
}

/// Why an `app_data_dictionary` is malformed.
public enum AppDataDictionaryError: Error, Sendable, Equatable, CustomStringConvertible {
    case duplicateComponent(UInt16)
    case unsortedComponents

    public var description: String {
        switch self {
        case .duplicateComponent(let id): "app_data_dictionary: component 0x\(String(id, radix: 16)) appears twice"
        case .unsortedComponents: "app_data_dictionary: component ids are not in ascending order"
        }
    }
}
