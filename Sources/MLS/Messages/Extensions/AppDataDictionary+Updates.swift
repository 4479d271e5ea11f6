import Foundation

extension AppDataDictionary {
    /// The dictionary after a commit's AppDataUpdates, applied in list order (draft-ietf-mls-extensions:
    /// applied before the new GroupContext is computed). Not yet called by `MLSGroup`; see the v2 notes.
    public func applying(_ updates: [AppDataUpdate]) throws(AppDataUpdateError) -> AppDataDictionary {
        var result = self
        for update in updates { try update.apply(to: &result) }
        return result
    }
}

extension Array where Element == Extension {
    /// GroupContext extensions with their `app_data_dictionary` replaced by the result of `updates`
    /// (an absent dictionary counts as empty; other extensions keep their order).
    public func applyingAppDataUpdates(_ updates: [AppDataUpdate]) throws -> [Extension] {
        guard !updates.isEmpty else { return self }
        let current = try payload(AppDataDictionary.self) ?? AppDataDictionary()
        let updated = Extension(try current.applying(updates))
        guard let index = firstIndex(where: { $0.type == .appDataDictionary }) else { return self + [updated] }
        var result = self
        result[index] = updated
        return result
    }
}
