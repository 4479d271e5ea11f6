import Foundation

/// application_id: an application-defined identifier for a leaf's client (RFC 9420 §5.3.3).
public struct ApplicationIDExtension: Hashable, Sendable, ExtensionPayload {
    public static let extensionType = ExtensionType.applicationID

    public var applicationID: Data
    public init(applicationID: Data) { self.applicationID = applicationID }

    public func encode(to writer: inout TLSWriter) { writer.writeOpaque(applicationID) }
    public init(from reader: inout TLSReader) throws { applicationID = try reader.readOpaque() }
}
