/// A fixed-size byte value that NIP-01 writes as a lower-case hex string (ids, keys, signatures).
///
/// Conforming types get their JSON `Codable` form, `hex` and `description` from here, so the strict
/// parsing rules live in each type's `init(hex:)` alone.
public protocol HexStringCodable: Codable, CustomStringConvertible {
    /// The raw bytes.
    var bytes: [UInt8] { get }
    /// Parses lower-case hex of the right length, with the type's own checks.
    init(hex: String) throws
}

extension HexStringCodable {
    /// Lower-case hex.
    public var hex: String { Hex.encode(bytes) }

    public var description: String { hex }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(hex: text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(error)"))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
