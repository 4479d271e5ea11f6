import Foundation

/// SelfRemove: the sender asks to be removed; the body is empty (draft-ietf-mls-extensions, MIP-03).
public struct SelfRemove: Hashable, Sendable, TLSCodable {
    public init() {}

    public func encode(to writer: inout TLSWriter) {}
    public init(from reader: inout TLSReader) throws {}
}
