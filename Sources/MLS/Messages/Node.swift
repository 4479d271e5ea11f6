import Foundation

/// The kind of a ratchet tree node (`NodeType`, RFC 9420 §7.8).
public enum NodeType: UInt8, Hashable, Sendable, TLSCodable {
    case leaf = 1
    case parent = 2

    public func encode(to writer: inout TLSWriter) { writer.write(rawValue) }
    public init(from reader: inout TLSReader) throws {
        let raw = try reader.readUInt8()
        guard let value = NodeType(rawValue: raw) else { throw MessageDecodingError.unknownNodeType(raw) }
        self = value
    }
}

/// A non-blank ratchet tree node as carried in the ratchet_tree extension (RFC 9420 §12.4.3.3).
public indirect enum Node: Hashable, Sendable, TLSCodable {
    case leaf(LeafNode)
    case parent(ParentNode)

    public var type: NodeType {
        switch self {
        case .leaf: .leaf
        case .parent: .parent
        }
    }

    public var leafNode: LeafNode? {
        if case .leaf(let leaf) = self { leaf } else { nil }
    }

    public var parentNode: ParentNode? {
        if case .parent(let parent) = self { parent } else { nil }
    }

    public func encode(to writer: inout TLSWriter) {
        writer.write(type)
        switch self {
        case .leaf(let leaf): writer.write(leaf)
        case .parent(let parent): writer.write(parent)
        }
    }

    public init(from reader: inout TLSReader) throws {
        switch try reader.read(NodeType.self) {
        case .leaf: self = .leaf(try reader.read())
        case .parent: self = .parent(try reader.read())
        }
    }
}
