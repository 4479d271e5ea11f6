import Foundation
import Testing
import TestSupport
@testable import MLS

/// messages.json: every field decodes into its RFC 9420 struct and re-encodes byte for byte.
struct MessagesVectorTests {
    /// How one field of a messages.json entry is decoded, checked and re-encoded.
    struct Field: Sendable, CustomStringConvertible {
        let name: String
        /// Decodes the bytes (the whole input must be used), checks the decoded shape, re-encodes.
        let roundTrip: @Sendable (Data) throws -> Data
        var description: String { name }
    }

    static func bare<T: TLSCodable & Sendable>(_ name: String, _ type: T.Type) -> Field {
        Field(name: name) { try T(tlsSerialized: $0).tlsSerialized }
    }

    static func message(_ name: String, _ check: @escaping @Sendable (MLSMessage.Body) -> Bool) -> Field {
        Field(name: name) { bytes in
            let message = try MLSMessage(tlsSerialized: bytes)
            guard check(message.body) else { throw FixtureError.malformed("\(name): unexpected body \(message.wireFormat)") }
            return message.tlsSerialized
        }
    }

    static func publicMessage(_ body: MLSMessage.Body) -> PublicMessage? {
        if case .publicMessage(let message) = body { message } else { nil }
    }

    static let fields: [Field] = [
        message("mls_welcome") { if case .welcome = $0 { true } else { false } },
        message("mls_group_info") { if case .groupInfo = $0 { true } else { false } },
        message("mls_key_package") { if case .keyPackage = $0 { true } else { false } },
        bare("ratchet_tree", RatchetTreeNodes.self),
        bare("group_secrets", GroupSecrets.self),
        bare("add_proposal", Add.self),
        bare("update_proposal", Update.self),
        bare("remove_proposal", Remove.self),
        bare("pre_shared_key_proposal", PreSharedKey.self),
        bare("re_init_proposal", ReInit.self),
        bare("external_init_proposal", ExternalInit.self),
        bare("group_context_extensions_proposal", GroupContextExtensions.self),
        bare("commit", Commit.self),
        message("public_message_application") { publicMessage($0)?.content.contentType == .application },
        message("public_message_proposal") { publicMessage($0)?.content.contentType == .proposal },
        message("public_message_commit") { publicMessage($0)?.content.contentType == .commit },
        message("private_message") { if case .privateMessage = $0 { true } else { false } },
    ]

    typealias Entry = [String: String?]

    static func load() throws -> [Entry]? {
        try SharedFixtures.loadJSON([Entry].self, "mls/messages.json")
    }

    @Test(arguments: fields)
    func fieldRoundTrips(field: Field) throws {
        guard let entries = try Self.load() else { return }
        var ran = 0
        var absent = 0
        for (index, entry) in entries.enumerated() {
            guard let hex = entry[field.name] ?? nil else {
                absent += 1
                continue
            }
            let bytes = try #require(Data(testHex: hex), "entry \(index) \(field.name): bad hex")
            let reencoded = try field.roundTrip(bytes)
            #expect(reencoded == bytes, "entry \(index) \(field.name) re-encodes differently")
            ran += 1
        }
        #expect(ran > 0)
        SharedFixtures.report("messages.json [\(field.name)]", ran: ran, skipped: absent, reason: "field absent")
    }

    /// Every extension of a known type found in the vectors also decodes through its typed view and
    /// re-encodes to the same extension_data.
    @Test func knownExtensionsDecodeThroughTypedViews() throws {
        guard let entries = try Self.load() else { return }
        var seen: [ExtensionType: Int] = [:]
        var unknown = 0
        for entry in entries {
            var extensions: [Extension] = []
            if let hex = entry["mls_group_info"] ?? nil, let bytes = Data(testHex: hex),
               case .groupInfo(let info) = try MLSMessage(tlsSerialized: bytes).body {
                extensions += info.extensions + info.groupContext.extensions
            }
            if let hex = entry["mls_key_package"] ?? nil, let bytes = Data(testHex: hex),
               case .keyPackage(let kp) = try MLSMessage(tlsSerialized: bytes).body {
                extensions += kp.extensions + kp.leafNode.extensions
            }
            if let hex = entry["group_context_extensions_proposal"] ?? nil, let bytes = Data(testHex: hex) {
                extensions += try GroupContextExtensions(tlsSerialized: bytes).extensions
            }
            if let hex = entry["re_init_proposal"] ?? nil, let bytes = Data(testHex: hex) {
                extensions += try ReInit(tlsSerialized: bytes).extensions
            }
            for ext in extensions {
                let reencoded: Data
                switch ext.type {
                case .applicationID: reencoded = Extension(try ext.payload(as: ApplicationIDExtension.self)).data
                case .ratchetTree: reencoded = Extension(try ext.payload(as: RatchetTreeNodes.self)).data
                case .requiredCapabilities: reencoded = Extension(try ext.payload(as: RequiredCapabilities.self)).data
                case .externalPub: reencoded = Extension(try ext.payload(as: ExternalPub.self)).data
                case .externalSenders: reencoded = Extension(try ext.payload(as: ExternalSenders.self)).data
                default:
                    unknown += 1
                    continue
                }
                #expect(reencoded == ext.data, "extension \(ext.type)")
                seen[ext.type, default: 0] += 1
            }
        }
        let summary = seen.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key)×\($0.value)" }
        print("messages.json typed extension views: \(summary.joined(separator: ", ")); \(unknown) of other types kept opaque")
    }
}
