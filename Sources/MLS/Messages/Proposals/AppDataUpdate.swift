import Foundation

extension ProposalType {
    /// app_data_update (draft-ietf-mls-extensions): changes one GroupContext component (Marmot v2).
    public static let appDataUpdate = ProposalType(rawValue: 0x0008)
}

/// The operation of an AppDataUpdate, open so an unknown value is reported rather than misread.
public struct AppDataUpdateOperation: RawRepresentable, Hashable, Sendable, TLSCodable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let update = AppDataUpdateOperation(rawValue: 1)
    public static let remove = AppDataUpdateOperation(rawValue: 2)

    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
    public init(from reader: inout TLSReader) throws { rawValue = try reader.readUInt8() }
}

/// AppDataUpdate proposal body: `component_id`, `op`, and for `update` an `opaque update<V>`; a
/// `remove` has no body (draft-ietf-mls-extensions `select`). Marmot v2 uses it for rename, admin
/// changes, routing rotation and disband; it is applied to the dictionary before the new
/// GroupContext is computed.
public struct AppDataUpdate: Hashable, Sendable, TLSCodable {
    public var componentID: UInt16
    public var operation: AppDataUpdateOperation
    /// The new component data for `update`; empty and not encoded for `remove`.
    public var update: Data

    public init(componentID: UInt16, operation: AppDataUpdateOperation, update: Data = Data()) {
        self.componentID = componentID
        self.operation = operation
        self.update = operation == .remove ? Data() : update
    }

    public static func update(_ componentID: UInt16, _ data: Data) -> AppDataUpdate {
        AppDataUpdate(componentID: componentID, operation: .update, update: data)
    }

    public static func remove(_ componentID: UInt16) -> AppDataUpdate {
        AppDataUpdate(componentID: componentID, operation: .remove)
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(componentID)
        writer.write(operation)
        if operation == .update { writer.writeOpaque(update) }
    }

    public init(from reader: inout TLSReader) throws {
        componentID = try reader.readUInt16()
        operation = try reader.read()
        switch operation {
        case .update: update = try reader.readOpaque()
        case .remove: update = Data()
        default: throw AppDataUpdateError.unknownOperation(operation.rawValue)
        }
    }

    /// Applies this update to a dictionary (draft-ietf-mls-extensions §AppDataUpdate): `update`
    /// replaces or inserts, `remove` deletes and fails when the component is absent.
    public func apply(to dictionary: inout AppDataDictionary) throws(AppDataUpdateError) {
        switch operation {
        case .update: dictionary.set(componentID, update)
        case .remove: guard dictionary.remove(componentID) else { throw .removeOfAbsentComponent(componentID) }
        default: throw .unknownOperation(operation.rawValue)
        }
    }
}

/// Why an AppDataUpdate cannot be applied.
public enum AppDataUpdateError: Error, Sendable, Equatable, CustomStringConvertible {
    case removeOfAbsentComponent(UInt16)
    case unknownOperation(UInt8)

    public var description: String {
        switch self {
        case .removeOfAbsentComponent(let id): "AppDataUpdate removes absent component 0x\(String(id, radix: 16))"
        case .unknownOperation(let op): "AppDataUpdate has unknown operation \(op)"
        }
    }
}

extension Proposal {
    /// The AppDataUpdate body, when this is one.
    public var appDataUpdate: AppDataUpdate? {
        guard case .appDataUpdate(let body) = self else { return nil }
        return body
    }
}
