import Foundation

/// One entry of an `app_data_dictionary`: a u16 component id and its opaque state
/// (draft-ietf-mls-extensions, ComponentData; Marmot v2 GroupContext and leaf components).
public struct ComponentData: Hashable, Sendable, TLSCodable {
    public var componentID: UInt16
    public var data: Data

    public init(componentID: UInt16, data: Data) {
        self.componentID = componentID
        self.data = data
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(componentID)
        writer.writeOpaque(data)
    }

    public init(from reader: inout TLSReader) throws {
        componentID = try reader.readUInt16()
        data = try reader.readOpaque()
    }
}
