import Foundation
import MLS

/// The per-epoch secret that media keys derive from: `MLS-Exporter("marmot", "encrypted-media", 32)`
/// of the epoch a file was sent in.
///
/// Both versions export the same secret (v1: MDK 0.8.0 `mip04_exporter_secret`, `groups.rs`; v2:
/// 0x800b, MDK 0.9.14 `cgka-engine/src/group_lifecycle.rs` `ENCRYPTED_MEDIA_EXPORTER_CONTEXT`);
/// they differ in the scheme label the file key is expanded under. A receiver needs the secret of
/// the sender's epoch, so the client keeps the secrets of past epochs as it keeps group-event keys.
/// Secret: not `Codable`, redacted when printed; `bytes` is the deliberate way out for sealed storage.
public struct MediaSecret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public static let exporterLabel = "marmot"
    public static let exporterContext = Data("encrypted-media".utf8)
    public static let byteCount = 32

    /// The secret's bytes (32 when valid; a wrong length is refused where a key is derived).
    public let bytes: Data

    /// Wraps a secret, for example one reloaded from sealed storage.
    public init(bytes: Data) { self.bytes = Data(bytes) }

    /// This epoch's secret of `group`.
    public init(exportedFrom group: MLSGroup) throws(MediaError) {
        do {
            bytes = try group.exporter(label: Self.exporterLabel, context: Self.exporterContext, length: Self.byteCount)
        } catch {
            throw .exporterFailed(String(describing: error))
        }
    }

    /// Constant-time comparison.
    public static func == (lhs: MediaSecret, rhs: MediaSecret) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        var diff: UInt8 = 0
        for (a, b) in zip(lhs.bytes, rhs.bytes) { diff |= a ^ b }
        return diff == 0
    }

    public var description: String { "MediaSecret(redacted)" }
    public var debugDescription: String { description }
}
