import Foundation

/// A party outside the group allowed to send proposals (RFC 9420 §12.1.8.1).
public struct ExternalSender: Hashable, Sendable, TLSCodable {
    /// The key that external proposals with this sender index are verified against.
    public var signatureKey: SignaturePublicKey
    public var credential: Credential

    public init(signatureKey: SignaturePublicKey, credential: Credential) {
        self.signatureKey = signatureKey
        self.credential = credential
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(signatureKey)
        writer.write(credential)
    }

    public init(from reader: inout TLSReader) throws {
        signatureKey = try reader.read()
        credential = try reader.read()
    }
}

/// external_senders: the list `Sender.external(senderIndex)` indexes into (RFC 9420 §12.1.8.1).
public struct ExternalSenders: Hashable, Sendable, ExtensionPayload {
    public static let extensionType = ExtensionType.externalSenders

    public var senders: [ExternalSender]
    public init(senders: [ExternalSender]) { self.senders = senders }

    public func encode(to writer: inout TLSWriter) { writer.writeVector(senders) }
    public init(from reader: inout TLSReader) throws { senders = try reader.readVector() }
}
