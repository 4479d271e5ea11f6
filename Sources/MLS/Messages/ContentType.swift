import Foundation

/// What a FramedContent or PrivateMessage carries (RFC 9420 §6); it selects the body, so reserved and
/// unknown values are rejected.
public enum ContentType: UInt8, Hashable, Sendable, TLSCodable, CustomStringConvertible {
    case application = 1
    case proposal = 2
    case commit = 3

    public var description: String {
        switch self {
        case .application: "application"
        case .proposal: "proposal"
        case .commit: "commit"
        }
    }

    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
    public init(from reader: inout TLSReader) throws {
        let raw = try reader.readUInt8()
        guard let value = ContentType(rawValue: raw) else { throw MessageDecodingError.unknownContentType(raw) }
        self = value
    }
}
