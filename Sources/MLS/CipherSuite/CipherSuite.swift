/// An MLS cipher suite code point (RFC 9420 §17.1), open so unknown values round-trip.
public struct CipherSuite: RawRepresentable, Hashable, Sendable, CustomStringConvertible, TLSCodable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519, the only suite Marmot uses (MIP-00).
    public static let mls128X25519AES128GCMSHA256Ed25519 = CipherSuite(rawValue: 0x0001)

    public var description: String { "0x" + String(rawValue, radix: 16).leftPadded(to: 4) }

    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
    public init(from reader: inout TLSReader) throws { rawValue = try reader.readUInt16() }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
