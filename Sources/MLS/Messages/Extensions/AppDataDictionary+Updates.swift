import Foundation

extension AppDataDictionary {
    /// The dictionary after `updates`, applied in list order (draft-ietf-mls-extensions §AppDataUpdate).
    /// `MLSGroup` applies a commit's updates itself, with the commit rules of `AppDataUpdateRules`
    /// (one operation per component); this is the plain operation.
    public func applying(_ updates: [AppDataUpdate]) throws(AppDataUpdateError) -> AppDataDictionary {
        var result = self
        for update in updates { try update.apply(to: &result) }
        return result
    }
}

extension Array where Element == Extension {
    /// GroupContext extensions with their `app_data_dictionary` replaced by the result of `updates`
    /// (an absent dictionary counts as empty). Other extensions keep their order and the updated
    /// dictionary goes last, as a commit carrying these updates places it (see `AppDataUpdateRules`).
    public func applyingAppDataUpdates(_ updates: [AppDataUpdate]) throws -> [Extension] {
        guard !updates.isEmpty else { return self }
        let current = try payload(AppDataDictionary.self) ?? AppDataDictionary()
        return replacingAppDataDictionary(with: try current.applying(updates))
    }
}
