/// A secret-store failure the UI should tell the user about, since it decides whether the account
/// survives a restart.
public struct SecretStoreProblem: Sendable, Equatable {
    public enum Operation: Sendable, Equatable {
        case load
        case save
        case delete
        /// Reading or creating this installation's storage secret (`InstallationSecretStore`).
        case installationSecret
    }

    public let operation: Operation
    public let error: SecretStoreError

    public init(operation: Operation, error: SecretStoreError) {
        self.operation = operation
        self.error = error
    }

    /// The text to show, naming the consequence; contains no secret.
    public var message: String {
        switch operation {
        case .load: "Could not read the saved account key (\(error)). Log in again with your nsec."
        case .save: "Could not save the account key (\(error)). It cannot be restored after the app closes."
        case .delete: "Could not remove the saved account key (\(error)). It will be restored next launch."
        case .installationSecret:
            "Could not read or create this device's storage secret (\(error)). Chats cannot be opened."
        }
    }
}
