import Foundation
import MarmotCore
import Testing

@testable import MarmotAppKit

/// The installation secret is a second item of each secret store: made once, kept 0600 beside the
/// nsec, never removed by logout.
@Suite("InstallationSecretStore")
struct InstallationSecretStoreTests {
    private let directory = Fixtures.temporaryDirectory()
    private func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    @Test("file store: made once in install-secret beside the nsec (0600), kept when the nsec is deleted")
    func fileStore() throws {
        defer { cleanUp() }
        let store = FileSecretStore(fileURL: directory.appendingPathComponent("secrets/nsec"))
        #expect(try store.loadInstallationSecret() == nil)
        let made = try store.provisionInstallationSecret()
        #expect(store.installationSecretURL.lastPathComponent == "install-secret")
        #expect(store.installationSecretURL.deletingLastPathComponent() == store.fileURL.deletingLastPathComponent())
        #expect(try filePermissions(store.installationSecretURL) == 0o600)
        #expect(try store.provisionInstallationSecret() == made)

        try store.save(Fixtures.nsec)
        try store.delete()  // logout
        #expect(try store.load() == nil)
        #expect(try store.loadInstallationSecret() == made)
        // Loose permissions are tightened when it is read.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.installationSecretURL.path)
        #expect(try FileSecretStore(fileURL: directory.appendingPathComponent("secrets/nsec")).loadInstallationSecret() == made)
        #expect(try filePermissions(store.installationSecretURL) == 0o600)
    }

    @Test("file store: a damaged secret is an error, never silently replaced (that would orphan the data)")
    func damagedSecret() throws {
        defer { cleanUp() }
        let store = FileSecretStore(fileURL: directory.appendingPathComponent("nsec"))
        try FileSecretStore(fileURL: store.installationSecretURL).save("not hex")
        #expect(throws: SecretStoreError.invalidInstallationSecret) { try store.provisionInstallationSecret() }
        #expect(try FileSecretStore(fileURL: store.installationSecretURL).load() == "not hex")
    }

    @Test("in-memory store: a second slot that delete() leaves alone, printed redacted")
    func inMemory() throws {
        let store = InMemorySecretStore(secret: Fixtures.nsec)
        let made = try store.provisionInstallationSecret()
        try store.delete()
        #expect(try store.loadInstallationSecret() == made)
        #expect(!"\(store)".contains(made.hexEncodedForStorage()))
    }

    @Test("boot: the configuration gets the stored secret, made and saved the first time")
    func bootProvisioning() throws {
        let store = InMemorySecretStore()
        let (first, problem) = AppManager.configuration(AppConfiguration(), withInstallationSecretFrom: store)
        #expect(problem == nil)
        let made = try #require(first.installationSecret)
        #expect(try store.loadInstallationSecret() == made)
        let (second, _) = AppManager.configuration(AppConfiguration(), withInstallationSecretFrom: store)
        #expect(second.installationSecret == made)
        // One the platform already passed is kept.
        let given = InstallationSecret.generate()
        let (kept, _) = AppManager.configuration(AppConfiguration(installationSecret: given), withInstallationSecretFrom: store)
        #expect(kept.installationSecret == given)
    }

    @MainActor
    @Test("boot: a secret store that fails is shown as a problem, and the core gets no secret")
    func bootFailure() throws {
        let (configuration, problem) = AppManager.configuration(AppConfiguration(), withInstallationSecretFrom: FailingInstallationStore())
        #expect(configuration.installationSecret == nil)
        #expect(problem == SecretStoreProblem(operation: .installationSecret, error: FailingSecretStore.failure))
        let manager = AppManager(core: ScriptedCore(), secretStore: InMemorySecretStore(), bootProblem: problem)
        #expect(manager.secretStoreProblem?.operation == .installationSecret)
        #expect(manager.secretStoreProblem?.message.contains("storage secret") == true)
    }
}

private struct FailingInstallationStore: InstallationSecretStore {
    func loadInstallationSecret() throws(SecretStoreError) -> InstallationSecret? { throw FailingSecretStore.failure }
    func saveInstallationSecret(_ secret: InstallationSecret) throws(SecretStoreError) { throw FailingSecretStore.failure }
}
