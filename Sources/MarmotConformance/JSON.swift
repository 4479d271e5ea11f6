import Foundation

/// A parsed JSON value of a vector file, with typed look-ups that fail with the path they were at.
struct JSON: CustomStringConvertible {
    let value: Any
    let path: String

    init(value: Any, path: String = "$") {
        self.value = value
        self.path = path
    }

    init(file: URL) throws {
        let data = try Data(contentsOf: file)
        self.init(value: try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    var description: String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]) else {
            return "\(value)"
        }
        return String(decoding: data, as: UTF8.self)
    }

    subscript(_ key: String) -> JSON? {
        guard let object = value as? [String: Any], let child = object[key], !(child is NSNull) else { return nil }
        return JSON(value: child, path: "\(path).\(key)")
    }

    var array: [JSON]? {
        (value as? [Any]).map { $0.enumerated().map { JSON(value: $1, path: "\(path)[\($0)]") } }
    }

    var string: String? { value as? String }
    var bool: Bool? { value as? Bool }
    var int: Int? { (value as? NSNumber)?.intValue }
    var keys: [String] { (value as? [String: Any]).map { Array($0.keys) } ?? [] }

    func required(_ key: String) throws -> JSON {
        guard let child = self[key] else { throw VectorError.missing("\(path).\(key)") }
        return child
    }

    func string(_ key: String) throws -> String {
        guard let value = try required(key).string else { throw VectorError.wrongType("\(path).\(key)", "string") }
        return value
    }

    func int(_ key: String) throws -> Int {
        guard let value = try required(key).int else { throw VectorError.wrongType("\(path).\(key)", "integer") }
        return value
    }

    func strings(_ key: String) throws -> [String] {
        guard let items = try required(key).array else { throw VectorError.wrongType("\(path).\(key)", "array") }
        return try items.map { item in
            guard let text = item.string else { throw VectorError.wrongType(item.path, "string") }
            return text
        }
    }

    func optionalStrings(_ key: String) throws -> [String]? {
        self[key] == nil ? nil : try strings(key)
    }
}

/// A vector file that does not have the shape MDK's simulator defines.
enum VectorError: Error, CustomStringConvertible {
    case missing(String)
    case wrongType(String, String)
    case unknown(String)

    var description: String {
        switch self {
        case .missing(let path): "missing \(path)"
        case .wrongType(let path, let type): "\(path) is not a \(type)"
        case .unknown(let what): what
        }
    }
}
