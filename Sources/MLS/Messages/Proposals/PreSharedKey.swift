import Foundation

/// PreSharedKey: injects a PSK into the next epoch's key schedule (RFC 9420 §12.1.4).
public struct PreSharedKey: Hashable, Sendable, TLSCodable {
    public var psk: PreSharedKeyID
    public init(psk: PreSharedKeyID) { self.psk = psk }

    public func encode(to writer: inout TLSWriter) { writer.write(psk) }
    public init(from reader: inout TLSReader) throws { psk = try reader.read() }
}
