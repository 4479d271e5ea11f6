import Foundation

/// The part of a commit's AuthenticatedContent that feeds the confirmed transcript hash (RFC 9420 §8.2):
/// everything up to and including the signature, but not the confirmation tag it will be confirmed by.
public struct ConfirmedTranscriptHashInput: Hashable, Sendable, TLSCodable {
    public var wireFormat: WireFormat
    /// A FramedContent whose content type is commit.
    public var content: FramedContent
    public var signature: Data

    /// Fails unless `content` is a commit.
    public init(wireFormat: WireFormat, content: FramedContent, signature: Data) throws {
        guard content.contentType == .commit else {
            throw MessageDecodingError.unexpectedContentType(content.contentType)
        }
        self.wireFormat = wireFormat
        self.content = content
        self.signature = signature
    }

    /// The input of a commit's AuthenticatedContent.
    public init(_ authenticated: AuthenticatedContent) throws {
        try self.init(wireFormat: authenticated.wireFormat, content: authenticated.content, signature: authenticated.auth.signature)
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(wireFormat)
        writer.write(content)
        writer.writeOpaque(signature)
    }

    public init(from reader: inout TLSReader) throws {
        try self.init(wireFormat: try reader.read(), content: try reader.read(), signature: try reader.readOpaque())
    }
}

/// The part of a commit's AuthenticatedContent that feeds the interim transcript hash: its
/// confirmation tag (RFC 9420 §8.2).
public struct InterimTranscriptHashInput: Hashable, Sendable, TLSCodable {
    public var confirmationTag: Data
    public init(confirmationTag: Data) { self.confirmationTag = confirmationTag }

    public func encode(to writer: inout TLSWriter) { writer.writeOpaque(confirmationTag) }
    public init(from reader: inout TLSReader) throws { confirmationTag = try reader.readOpaque() }
}

/// The pair of running hashes over a group's commits (RFC 9420 §8.2).
///
/// The confirmed hash covers every commit up to the latest one's signature and goes into the
/// GroupContext; the interim hash adds that commit's confirmation tag and seeds the next step.
public struct TranscriptHashes: Hashable, Sendable {
    public var confirmed: Data
    public var interim: Data

    public init(confirmed: Data, interim: Data) {
        self.confirmed = confirmed
        self.interim = interim
    }

    /// Both hashes empty, as at group creation before the first commit (epoch 0).
    public static let initial = TranscriptHashes(confirmed: Data(), interim: Data())

    /// confirmed_[n] = Hash(interim_[n-1] ‖ ConfirmedTranscriptHashInput_[n]).
    public static func confirmedHash(
        interimBefore: Data, input: ConfirmedTranscriptHashInput, suite: CipherSuiteProvider
    ) -> Data {
        suite.hash(interimBefore + input.tlsSerialized)
    }

    /// interim_[n] = Hash(confirmed_[n] ‖ InterimTranscriptHashInput_[n]).
    public static func interimHash(
        confirmed: Data, input: InterimTranscriptHashInput, suite: CipherSuiteProvider
    ) -> Data {
        suite.hash(confirmed + input.tlsSerialized)
    }

    /// The interim hash a joiner derives from a GroupInfo's confirmed hash and confirmation tag (§12.4.3.1).
    public init(confirmed: Data, confirmationTag: Data, suite: CipherSuiteProvider) {
        self.confirmed = confirmed
        interim = Self.interimHash(
            confirmed: confirmed, input: InterimTranscriptHashInput(confirmationTag: confirmationTag), suite: suite)
    }

    /// The hashes after `commit`, starting from this epoch's interim hash.
    ///
    /// Fails when `commit` is not a commit or carries no confirmation tag.
    public func applying(commit: AuthenticatedContent, suite: CipherSuiteProvider) throws -> TranscriptHashes {
        let confirmedInput = try ConfirmedTranscriptHashInput(commit)
        guard let tag = commit.auth.confirmationTag else { throw MessageEncodingError.missingConfirmationTag }
        let confirmed = Self.confirmedHash(interimBefore: interim, input: confirmedInput, suite: suite)
        return TranscriptHashes(confirmed: confirmed, confirmationTag: tag, suite: suite)
    }

    /// confirmation_tag = MAC(confirmation_key, confirmed_transcript_hash) (§6.1, §8.2).
    public static func confirmationTag(confirmationKey: Data, confirmed: Data, suite: CipherSuiteProvider) -> Data {
        suite.mac(key: confirmationKey, data: confirmed)
    }

    /// Checks a confirmation tag in constant time.
    public static func verifyConfirmationTag(
        _ tag: Data, confirmationKey: Data, confirmed: Data, suite: CipherSuiteProvider
    ) -> Bool {
        suite.verifyMAC(key: confirmationKey, data: confirmed, tag: tag)
    }
}
