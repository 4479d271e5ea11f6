import Foundation

/// The secrets a Welcome gives each new member (RFC 9420 §12.4.3.1).
///
/// Holds key material: not `Codable`, and its description is redacted.
public struct GroupSecrets: Hashable, Sendable, TLSCodable, CustomStringConvertible {
    public var joinerSecret: Data
    /// The path secret of the lowest node shared by the committer's and the joiner's direct paths.
    public var pathSecret: Data?
    /// PSKs the joiner must inject into the key schedule.
    public var psks: [PreSharedKeyID]

    public init(joinerSecret: Data, pathSecret: Data?, psks: [PreSharedKeyID]) {
        self.joinerSecret = joinerSecret
        self.pathSecret = pathSecret
        self.psks = psks
    }

    public var description: String { "GroupSecrets(redacted)" }

    public func encode(to writer: inout TLSWriter) {
        writer.writeOpaque(joinerSecret)
        // optional<PathSecret>, where PathSecret is struct { opaque path_secret<V>; }.
        writer.writeOptional(pathSecret) { w, secret in w.writeOpaque(secret) }
        writer.writeVector(psks)
    }

    public init(from reader: inout TLSReader) throws {
        joinerSecret = try reader.readOpaque()
        pathSecret = try reader.readOptional { try $0.readOpaque() }
        psks = try reader.readVector()
    }
}
