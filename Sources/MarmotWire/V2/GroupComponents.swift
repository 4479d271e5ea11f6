import Foundation
import MLS
import Nostr

/// The Marmot v2 components of a GroupContext `app_data_dictionary`, decoded and checked, with the
/// dictionary itself kept so 0x8006, 0x800b and unknown optional components round-trip byte for byte
/// (foundation/registries.md; MDK cgka-engine `app_components.rs`).
public struct GroupComponents: Hashable, Sendable {
    /// The dictionary as received; re-encoding it gives the same bytes.
    public let dictionary: AppDataDictionary
    /// 0x0001: the components every member must support.
    public let required: ComponentsList
    public let profile: GroupProfile?
    public let adminPolicy: AdminPolicy?
    public let routing: NostrRouting?
    public let lifecycle: GroupLifecycle?
    public let retention: MessageRetention?
    /// 0x8002: the encrypted group picture on Blossom; nil when absent.
    public let image: GroupImage?
    /// 0x8007: the group picture by https address; nil when absent.
    public let avatarURL: GroupAvatarURL?

    public init(dictionary: AppDataDictionary) throws(V2GroupComponentsError) {
        self.dictionary = dictionary
        guard dictionary[MarmotComponentID.accountIdentityProof] == nil else { throw .leafOnlyComponentInGroup }
        func decode<T>(_ id: UInt16, _ body: ([UInt8]) throws(V2ComponentError) -> T) throws(V2GroupComponentsError) -> T? {
            guard let data = dictionary[id] else { return nil }
            do { return try body(Array(data)) } catch { throw .invalidComponent(id, error) }
        }
        guard let required = try decode(MarmotComponentID.appComponents, { b throws(V2ComponentError) in try ComponentsList(bytes: b) })
        else { throw .missingRequiredList }
        self.required = required
        profile = try decode(MarmotComponentID.groupProfile) { b throws(V2ComponentError) in try GroupProfile(bytes: b) }
        adminPolicy = try decode(MarmotComponentID.adminPolicy) { b throws(V2ComponentError) in try AdminPolicy(bytes: b) }
        routing = try decode(MarmotComponentID.nostrRouting) { b throws(V2ComponentError) in try NostrRouting(bytes: b) }
        lifecycle = try decode(MarmotComponentID.lifecycle) { b throws(V2ComponentError) in try GroupLifecycle(bytes: b) }
        retention = try decode(MarmotComponentID.messageRetention) { b throws(V2ComponentError) in try MessageRetention(bytes: b) }
        image = try decode(MarmotComponentID.blossomImage) { b throws(V2ComponentError) in try GroupBlossomImage.decode(b) } ?? nil
        avatarURL = try decode(MarmotComponentID.avatarURL) { b throws(V2ComponentError) in try GroupAvatarURL.decode(b) } ?? nil
        for id in Self.profileRequiredComponents where !required.contains(id) { throw .profileComponentNotRequired(id) }
        for id in Self.requiredStateComponents where dictionary[id] == nil { throw .requiredStateMissing(id) }
    }

    /// Components the current profile requires of every member (MDK
    /// `vectors/current-profile-required-set.v1.json`: `required_app_components`).
    public static let profileRequiredComponents: [UInt16] = [MarmotComponentID.adminPolicy, MarmotComponentID.accountIdentityProof]
    /// Components whose state the GroupContext must hold (same vector:
    /// `required_group_context_state_components`).
    public static let requiredStateComponents: [UInt16] = [MarmotComponentID.adminPolicy]

    /// Decodes the `app_data_dictionary` among GroupContext extensions.
    public init(groupContextExtensions: [Extension]) throws(V2GroupComponentsError) {
        let dictionary: AppDataDictionary?
        do { dictionary = try groupContextExtensions.payload(AppDataDictionary.self) } catch {
            throw .malformedDictionary(String(describing: error))
        }
        guard let dictionary else { throw .missingDictionary }
        try self.init(dictionary: dictionary)
    }

    /// Required ids this implementation does not support (a Welcome naming any is refused).
    public func unsupportedRequired(supported: Set<UInt16> = MarmotComponentID.supported) -> [UInt16] {
        required.ids.filter { !supported.contains($0) }
    }

    /// The raw bytes of a component kept only for preservation (0x8006, 0x800b, unknown ids).
    public func raw(_ id: UInt16) -> Data? { dictionary[id] }
}

/// Why a GroupContext's v2 components are unacceptable.
public enum V2GroupComponentsError: Error, Sendable, Equatable, CustomStringConvertible {
    case missingDictionary
    case malformedDictionary(String)
    case missingRequiredList
    case leafOnlyComponentInGroup
    case invalidComponent(UInt16, V2ComponentError)
    case requiredStateMissing(UInt16)
    case profileComponentNotRequired(UInt16)
    case missingRequiredCapabilities

    public var description: String {
        switch self {
        case .missingDictionary: "GroupContext has no app_data_dictionary"
        case .malformedDictionary(let why): "GroupContext app_data_dictionary: \(why)"
        case .missingRequiredList: "GroupContext has no app_components (0x0001)"
        case .leafOnlyComponentInGroup: "GroupContext carries leaf-only component 0x8009"
        case .invalidComponent(let id, let e): "component 0x\(String(id, radix: 16)): \(e)"
        case .requiredStateMissing(let id): "required component 0x\(String(id, radix: 16)) has no state"
        case .profileComponentNotRequired(let id): "app_components does not require 0x\(String(id, radix: 16))"
        case .missingRequiredCapabilities:
            "required_capabilities must require extension 0x0006 and proposals 0x0008 and 0x000a"
        }
    }
}
