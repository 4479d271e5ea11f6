import Foundation

/// How a commit's AppDataUpdate proposals change the GroupContext (draft-ietf-mls-extensions
/// §AppDataUpdate, as MDK 0.9.x and its OpenMLS fork apply them), shared by the committer and
/// every receiver so both compute the same new GroupContext.
///
/// - At most one AppDataUpdate per component id in one commit. The draft allows several `update`s
///   of one component (fed to the application in order); MDK refuses any second operation on a
///   component, and so does this code, which leaves no ordering question open.
/// - A `remove` of a component with no state is invalid (draft; OpenMLS/MDK silently ignore it
///   when no GroupContextExtensions proposal is present; MDK itself never sends a `remove`).
/// - They apply after the default proposals, to the dictionary the GroupContextExtensions proposal
///   left (the current one otherwise); an absent dictionary counts as empty. An `update` replaces
///   the component's data with its payload (MDK's component logic; the MLS layer knows no other).
/// - The updated `app_data_dictionary` is moved to the end of the extension list, as OpenMLS's
///   `add_or_replace` does (the draft only says where a new one goes). In MDK's groups it already
///   is last (`required_capabilities`, then the dictionary), so both readings give the same bytes.
/// - An AppDataUpdate may not precede a GroupContextExtensions proposal in the list (OpenMLS).
/// - While app_data_update is a required proposal type, before or after the commit, a
///   GroupContextExtensions proposal must leave the `app_data_dictionary` exactly as it was.
enum AppDataUpdateRules {
    /// `extensions` with the updates applied to their `app_data_dictionary`; `position` is each
    /// update's index in the commit's proposal list, for the error.
    static func apply(
        _ updates: [(position: Int, update: AppDataUpdate)], to extensions: [Extension]
    ) throws(ProposalListValidationError) -> [Extension] {
        var seen = Set<UInt16>()
        for item in updates where !seen.insert(item.update.componentID).inserted {
            throw .multipleAppDataUpdates(componentID: item.update.componentID)
        }
        var dictionary: AppDataDictionary
        do {
            dictionary = try extensions.payload(AppDataDictionary.self) ?? AppDataDictionary()
        } catch {
            throw .malformedAppDataDictionary
        }
        for item in updates.sorted(by: { $0.update.componentID < $1.update.componentID }) {
            do {
                try item.update.apply(to: &dictionary)
            } catch {
                throw .invalidAppDataUpdate(position: item.position, error)
            }
        }
        return extensions.replacingAppDataDictionary(with: dictionary)
    }

    /// The dictionary rule for a GroupContextExtensions proposal `proposed` in a group whose current
    /// extensions are `current`.
    static func checkGroupContextExtensions(
        _ proposed: [Extension], current: [Extension]
    ) throws(ProposalListValidationError) {
        guard requiresAppDataUpdate(current) || requiresAppDataUpdate(proposed) else { return }
        let before = current.first { $0.type == .appDataDictionary }
        let after = proposed.first { $0.type == .appDataDictionary }
        if before != after { throw .groupContextExtensionsChangeAppDataDictionary }
    }

    /// Whether `extensions` hold a required_capabilities listing app_data_update (an undecodable one
    /// counts as not; it is rejected by the GroupContext extension checks).
    static func requiresAppDataUpdate(_ extensions: [Extension]) -> Bool {
        guard let required = try? extensions.payload(RequiredCapabilities.self) else { return false }
        return required.proposalTypes.contains(.appDataUpdate)
    }
}

extension Array where Element == Extension {
    /// The list with its `app_data_dictionary` (if any) taken out and `dictionary` appended last.
    func replacingAppDataDictionary(with dictionary: AppDataDictionary) -> [Extension] {
        filter { $0.type != .appDataDictionary } + [Extension(dictionary)]
    }
}
