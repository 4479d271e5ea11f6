import Foundation

/// Starts a new epoch by applying proposals and optionally refreshing the committer's path (RFC 9420 §12.4).
public struct Commit: Hashable, Sendable, TLSCodable {
    public var proposals: [ProposalOrRef]
    public var path: UpdatePath?

    public init(proposals: [ProposalOrRef], path: UpdatePath?) {
        self.proposals = proposals
        self.path = path
    }

    public func encode(to writer: inout TLSWriter) {
        writer.writeVector(proposals)
        writer.writeOptional(path)
    }

    public init(from reader: inout TLSReader) throws {
        proposals = try reader.readVector()
        path = try reader.readOptional()
    }
}
