import Foundation

/// GroupSecrets encrypted to one new member's KeyPackage init key (RFC 9420 §12.4.3.1).
public struct EncryptedGroupSecrets: Hashable, Sendable, TLSCodable {
    /// Which KeyPackage (hence which init key) the secrets are for.
    public var newMember: KeyPackageRef
    /// EncryptWithLabel(init_key, "Welcome", encrypted_group_info, GroupSecrets).
    public var encryptedGroupSecrets: HPKECiphertext

    public init(newMember: KeyPackageRef, encryptedGroupSecrets: HPKECiphertext) {
        self.newMember = newMember
        self.encryptedGroupSecrets = encryptedGroupSecrets
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(newMember)
        writer.write(encryptedGroupSecrets)
    }

    public init(from reader: inout TLSReader) throws {
        newMember = try reader.read()
        encryptedGroupSecrets = try reader.read()
    }
}
