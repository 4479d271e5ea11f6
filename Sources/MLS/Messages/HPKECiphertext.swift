import Foundation

/// An HPKE base-mode ciphertext: encapsulated key and sealed bytes (RFC 9420 §7.6).
public struct HPKECiphertext: Hashable, Sendable, TLSCodable {
    public var kemOutput: Data
    public var ciphertext: Data

    public init(kemOutput: Data, ciphertext: Data) {
        self.kemOutput = kemOutput
        self.ciphertext = ciphertext
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeOpaque(kemOutput)
        writer.writeOpaque(ciphertext)
    }

    public init(from reader: inout TLSReader) throws {
        kemOutput = try reader.readOpaque()
        ciphertext = try reader.readOpaque()
    }
}
