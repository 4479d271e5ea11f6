import Foundation

/// A typed view of one extension's `extension_data` (RFC 9420 §13.4).
///
/// `Extension` stays generic so unknown and GREASE extensions round-trip; known ones are read and
/// written through these views.
public protocol ExtensionPayload: TLSCodable {
    static var extensionType: ExtensionType { get }
}

extension Extension {
    /// Wraps a typed payload as a generic extension.
    public init<P: ExtensionPayload>(_ payload: P) {
        self.init(type: P.extensionType, data: payload.tlsSerialized)
    }

    /// Decodes this extension's data as `P`; fails on a type mismatch or bytes left over.
    public func payload<P: ExtensionPayload>(as _: P.Type = P.self) throws -> P {
        guard type == P.extensionType else {
            throw MessageDecodingError.extensionTypeMismatch(expected: P.extensionType.rawValue, actual: type.rawValue)
        }
        return try P(tlsSerialized: data)
    }
}

extension Array where Element == Extension {
    /// The first extension of `P`'s type, decoded; nil when absent (§13.4 allows at most one per type).
    public func payload<P: ExtensionPayload>(_ type: P.Type = P.self) throws -> P? {
        guard let ext = first(where: { $0.type == P.extensionType }) else { return nil }
        return try ext.payload(as: P.self)
    }
}
