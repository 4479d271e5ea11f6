import Foundation

/// Brings new members into the epoch a Commit created (RFC 9420 §12.4.3.1).
public struct Welcome: Hashable, Sendable, TLSCodable {
    public var cipherSuite: CipherSuite
    /// One entry per new member.
    public var secrets: [EncryptedGroupSecrets]
    /// GroupInfo sealed under the welcome key and nonce derived from the joiner secret.
    public var encryptedGroupInfo: Data

    public init(cipherSuite: CipherSuite, secrets: [EncryptedGroupSecrets], encryptedGroupInfo: Data) {
        self.cipherSuite = cipherSuite
        self.secrets = secrets
        self.encryptedGroupInfo = encryptedGroupInfo
    }

    /// The entry addressed to `ref`, if any.
    public func secrets(for ref: KeyPackageRef) -> EncryptedGroupSecrets? {
        secrets.first { $0.newMember == ref }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(cipherSuite)
        writer.writeVector(secrets)
        writer.writeOpaque(encryptedGroupInfo)
    }

    public init(from reader: inout TLSReader) throws {
        cipherSuite = try reader.read()
        secrets = try reader.readVector()
        encryptedGroupInfo = try reader.readOpaque()
    }
}
