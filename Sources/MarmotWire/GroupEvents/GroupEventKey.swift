import Foundation
import MLS

/// The per-epoch key of the kind-445 outer encryption layer:
/// `MLS-Exporter("marmot", "group-event", 32)` of the sender's current epoch (MIP-03 as MDK 0.8.0;
/// marmot-wire §5.2).
///
/// Secret: not `Codable`, redacted when printed; `rawBytesForStorage` is the deliberate way out for
/// the encrypted store, which keeps the keys of past epochs for late messages.
public struct GroupEventKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public static let exporterLabel = "marmot"
    public static let exporterContext = Data("group-event".utf8)
    public static let byteCount = 32

    let bytes: Data

    /// Wraps a 32-byte key (for example one reloaded from storage).
    public init(bytes: Data) throws(GroupEventError) {
        guard bytes.count == Self.byteCount else { throw .invalidKeyLength(bytes.count) }
        self.bytes = Data(bytes)
    }

    /// Derives the key from an MLS-Exporter function `(label, context, length) -> secret`.
    public init(exporter: (String, Data, Int) throws -> Data) throws {
        try self.init(bytes: try exporter(Self.exporterLabel, Self.exporterContext, Self.byteCount))
    }

    /// Derives the key from an epoch's secrets.
    public init(epochSecrets: EpochSecrets) throws {
        try self.init(bytes: try epochSecrets.exporter(
            label: Self.exporterLabel, context: Self.exporterContext, length: Self.byteCount))
    }

    /// The 32 key bytes, for persisting encrypted at rest. Never log them.
    public var rawBytesForStorage: Data { bytes }

    public static func == (lhs: GroupEventKey, rhs: GroupEventKey) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        var diff: UInt8 = 0
        for (a, b) in zip(lhs.bytes, rhs.bytes) { diff |= a ^ b }
        return diff == 0
    }

    public var description: String { "GroupEventKey(redacted)" }
    public var debugDescription: String { description }
}
