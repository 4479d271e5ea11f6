#if canImport(Security)
    import Foundation
    import Security

    /// Keeps the secret as one generic password item in the Keychain (MVP spec, Key Storage; bible §6.6).
    ///
    /// The item is readable after the first unlock, never leaves this device (no iCloud Keychain sync,
    /// not restored to another device from a backup), and lives in the data-protection keychain on
    /// macOS too. Not built on Linux; the CI cannot exercise it.
    public struct KeychainSecretStore: SecretStore, CustomStringConvertible {
        public let service: String
        public let account: String
        /// A shared access group (e.g. for a notification extension), or nil for the app's own.
        public let accessGroup: String?

        public init(service: String, account: String = "nsec", accessGroup: String? = nil) {
            self.service = service
            self.account = account
            self.accessGroup = accessGroup
        }

        public func load() throws(SecretStoreError) -> String? {
            var query = itemQuery()
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess else { throw .keychain(operation: "read", status: status) }
            guard let data = result as? Data, let secret = String(data: data, encoding: .utf8) else {
                throw .notText
            }
            return secret
        }

        public func save(_ secret: String) throws(SecretStoreError) {
            let data = Data(secret.utf8)
            let attributes: [String: Any] = [
                kSecValueData as String: data,
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            ]
            let status = SecItemUpdate(itemQuery() as CFDictionary, attributes as CFDictionary)
            if status == errSecSuccess { return }
            guard status == errSecItemNotFound else { throw .keychain(operation: "update", status: status) }
            let added = SecItemAdd(itemQuery().merging(attributes) { _, new in new } as CFDictionary, nil)
            guard added == errSecSuccess else { throw .keychain(operation: "add", status: added) }
        }

        public func delete() throws(SecretStoreError) {
            let status = SecItemDelete(itemQuery() as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw .keychain(operation: "delete", status: status)
            }
        }

        public var description: String { "KeychainSecretStore(service: \(service), account: \(account))" }

        /// The attributes that identify the item.
        private func itemQuery() -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: account,
                kSecAttrSynchronizable as String: false,
                kSecUseDataProtectionKeychain as String: true,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }
    }
#endif
