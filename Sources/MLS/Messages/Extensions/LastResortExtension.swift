import Foundation

/// last_resort: marks a KeyPackage that may be reused when no other is left (draft-ietf-mls-extensions,
/// RFC 9420 §16.8); its data is empty.
public struct LastResortExtension: Hashable, Sendable, ExtensionPayload {
    public static let extensionType = ExtensionType.lastResort

    public init() {}

    public func encode(to writer: inout TLSWriter) {}
    public init(from reader: inout TLSReader) throws {}
}
