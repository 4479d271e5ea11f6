import Foundation

/// Add: requests that the KeyPackage's client join the group (RFC 9420 §12.1.1).
public struct Add: Hashable, Sendable, TLSCodable {
    public var keyPackage: KeyPackage
    public init(keyPackage: KeyPackage) { self.keyPackage = keyPackage }

    public func encode(to writer: inout TLSWriter) { writer.write(keyPackage) }
    public init(from reader: inout TLSReader) throws { keyPackage = try reader.read() }
}
