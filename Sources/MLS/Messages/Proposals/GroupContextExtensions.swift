import Foundation

/// GroupContextExtensions: wholesale replacement of the group's extensions (RFC 9420 §12.1.7).
public struct GroupContextExtensions: Hashable, Sendable, TLSCodable {
    public var extensions: [Extension]
    public init(extensions: [Extension]) { self.extensions = extensions }

    public func encode(to writer: inout TLSWriter) { writer.writeVector(extensions) }
    public init(from reader: inout TLSReader) throws { extensions = try reader.readVector() }
}
