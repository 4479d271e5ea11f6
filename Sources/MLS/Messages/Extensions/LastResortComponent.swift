import Foundation

/// The last_resort marker of the Marmot v2 profile: component 0x0004 with empty data inside a
/// KeyPackage's `app_data_dictionary` (draft-ietf-mls-extensions; MDK 0.9 marks every KeyPackage so),
/// replacing v1's extension 0x000a.
public enum LastResortComponent {
    public static let componentID: UInt16 = 0x0004

    /// The KeyPackage extension MDK 0.9 writes: `0006 04 03 0004 00`.
    public static var keyPackageExtension: Extension {
        Extension(AppDataDictionary(ascending: [ComponentData(componentID: componentID, data: Data())]))
    }

    /// Whether KeyPackage extensions carry the marker (an undecodable dictionary counts as absent).
    public static func isMarked(_ keyPackageExtensions: [Extension]) -> Bool {
        guard let dictionary = try? keyPackageExtensions.payload(AppDataDictionary.self) else { return false }
        return dictionary[componentID] != nil
    }
}
