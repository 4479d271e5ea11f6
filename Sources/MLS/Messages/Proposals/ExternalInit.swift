import Foundation

/// ExternalInit: the KEM output from which an external joiner's init_secret is derived (RFC 9420 §12.1.6, §8.3).
public struct ExternalInit: Hashable, Sendable, TLSCodable {
    public var kemOutput: Data
    public init(kemOutput: Data) { self.kemOutput = kemOutput }

    public func encode(to writer: inout TLSWriter) { writer.writeOpaque(kemOutput) }
    public init(from reader: inout TLSReader) throws { kemOutput = try reader.readOpaque() }
}
