import Foundation
import MarmotCore
import Nostr
import Testing

/// The storage key is salted with the platform's installation secret: another app that holds the
/// same nsec (and a copy of the account folder) cannot open the chats, while this installation
/// reopens them after a logout.
@Suite(.serialized, .timeLimit(.minutes(5))) struct MarmotStorageKeyTests {
    @Test func anotherInstallationHoldingTheSameNsecCannotOpenTheChats() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (_, relay) = try await world.startRelay()
        let pair = try await MarmotMessagingTests.pair(world, relay: relay)
        let alice = pair.alice
        let nsec = pair.aliceKeys.secretKey.nsecEncoded()
        alice.dispatch(.logout)
        try await alice.waitFor("logged out") { !$0.auth.isLoggedIn }

        // Same folder, same nsec, its own installation secret.
        let intruder = LiveApp("intruder", directory: alice.directory, relays: [relay], options: alice.options,
                               installationSecret: .generate())
        intruder.dispatch(.restoreSession(nsec: nsec))
        try await intruder.waitFor("storage refused") { $0.toast != nil && !$0.busy.restoringSession }
        #expect(intruder.state().toast?.contains("another key") == true)
        #expect(intruder.state().chatList.isEmpty)
        intruder.dispatch(.logout)
        try await intruder.waitFor("logged out") { !$0.auth.isLoggedIn }

        // This installation's secret (kept across the logout) opens it again.
        let back = LiveApp("alice", directory: alice.directory, relays: [relay], options: alice.options,
                           installationSecret: alice.installationSecret)
        back.dispatch(.restoreSession(nsec: nsec))
        try await back.waitFor("chats back") { $0.chatList.contains { $0.chatID == pair.chatID } }
    }

    @Test func messagingWithoutAnInstallationSecretRefusesToOpenStorage() async throws {
        let world = LiveWorld()
        defer { Task { await world.close() } }
        let (_, relay) = try await world.startRelay()
        let directory = world.root.appendingPathComponent("nosecret")
        let app = MarmotApp(
            dataDirectory: directory,
            configuration: AppConfiguration(
                relayURLs: [relay], messagingServiceFactory: MarmotMessaging.factory(LiveApp.testOptions), logLevel: .critical))
        app.dispatch(.createAccount)
        try await waitUntil("refused") { app.state().toast?.contains("installation secret") == true }
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: directory.path)) ?? []
        #expect(!files.contains { $0.hasSuffix("marmot.sqlite") })
    }
}
