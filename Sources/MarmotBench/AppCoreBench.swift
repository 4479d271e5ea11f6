import Foundation
import Logging
import Marmot
import MarmotCore
import Nostr
import NostrClient
import NostrRelay

/// The app core with the real messaging service over the embedded relay: how long a dispatched
/// action takes to reach the renderer as an update, and how long a cold start over a large
/// history (50 chats, 10,000 and 100,000 messages on disk) takes to show the chat list and open a
/// chat (issue 27's goals).
///
/// Environment: `MARMOT_BENCH_SENDS` (sends measured, 200), `MARMOT_BENCH_HISTORY` (message totals of
/// the cold-start histories, "10000,100000"), `MARMOT_BENCH_KEEP` (a folder where seeded histories
/// and their keys are kept and reused, so runs before and after a change, or under callgrind, open
/// the same history without seeding it again).
enum AppCoreBench {
    static let navigations = 1_000
    static let sends = environmentInts("MARMOT_BENCH_SENDS")?.first ?? 200
    static let chatCount = 50
    static let historyTotals = environmentInts("MARMOT_BENCH_HISTORY") ?? [10_000, 100_000]
    static let coldStarts = 3
    static let keep = ProcessInfo.processInfo.environment["MARMOT_BENCH_KEEP"].map { URL(fileURLWithPath: $0) }

    static func environmentInts(_ name: String) -> [Int]? {
        ProcessInfo.processInfo.environment[name].map {
            $0.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 }
        }
    }

    /// `sections`: the dispatch latencies ("send"), the cold starts ("cold"), or both.
    static func run(sections: Set<String> = ["send", "cold"]) async {
        Bench.section("App core (MarmotApp + Marmot messaging, embedded relay)")
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let server = RelayServer(configuration: .benchmark, logger: logger)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        do {
            guard let url = URL(string: "ws://127.0.0.1:\(try await server.start())") else { return }
            if sections.contains("send") { try await dispatchLatency(relay: url, root: root) }
            if sections.contains("cold") {
                for total in historyTotals {
                    try await coldStart(relay: url, root: keep ?? root, messagesPerChat: max(1, total / chatCount), logger: logger)
                }
            }
        } catch {
            print("app core: failed: \(error)")
        }
        await server.stop()
    }

    static var options: MarmotMessagingOptions {
        var options = MarmotMessagingOptions()
        options.logLevel = .critical
        return options
    }

    /// This run's installation secret: every app of the run, and the seeded store, share it (kept
    /// in `MARMOT_BENCH_KEEP` with the histories it opens).
    static let installationSecret: InstallationSecret = {
        guard let keep else { return .generate() }
        let file = keep.appendingPathComponent("installation-secret")
        if let text = try? String(contentsOf: file, encoding: .utf8), let kept = InstallationSecret(hex: text) { return kept }
        let fresh = InstallationSecret.generate()
        try? FileManager.default.createDirectory(at: keep, withIntermediateDirectories: true)
        try? fresh.hexEncodedForStorage().write(to: file, atomically: true, encoding: .utf8)
        return fresh
    }()

    static func makeApp(_ directory: URL, relay: URL) -> (MarmotApp, UpdateProbe) {
        let app = MarmotApp(
            dataDirectory: directory,
            configuration: AppConfiguration(
                relayURLs: [relay], messagingServiceFactory: MarmotMessaging.factory(options), logLevel: .critical,
                installationSecret: installationSecret))
        let probe = UpdateProbe()
        app.listenForUpdates(probe)
        return (app, probe)
    }

    // MARK: Dispatch → update

    static func dispatchLatency(relay: URL, root: URL) async throws {
        let (alice, probe) = makeApp(root.appendingPathComponent("alice"), relay: relay)
        let (bob, _) = makeApp(root.appendingPathComponent("bob"), relay: relay)
        alice.dispatch(.createAccount)
        bob.dispatch(.createAccount)
        try await probe.until(alice) { $0.auth.isLoggedIn }
        try await until("bob logged in") { bob.state().auth.isLoggedIn }
        guard case .loggedIn(let bobNpub, _) = bob.state().auth else { return }

        var navigation: [Double] = []
        for _ in 0..<navigations {
            let mark = probe.mark()
            let start = Bench.now()
            alice.dispatch(.pushScreen(.newChat))
            try await probe.until(alice, after: mark) { $0.router.topScreen == .newChat }
            navigation.append(Double(Bench.now() - start))
            alice.dispatch(.updateScreenStack([]))
            try await probe.until(alice) { $0.router.screenStack.isEmpty }
        }
        report("navigation (pushScreen → RouterChanged)", navigation)

        // Bob's key package may still be on its way; retry the invite until it is found.
        for _ in 0..<50 {
            alice.dispatch(.createChat(peerNpub: bobNpub))
            try await until("chat created or refused") { !alice.state().busy.creatingChat }
            try await Task.sleep(for: .milliseconds(20))
            if alice.state().currentChat != nil { break }
            alice.dispatch(.clearToast)
        }
        guard let chatID = alice.state().currentChat?.chatID else { throw BenchSkip("chat not created") }
        var pending: [Double] = []
        var sent: [Double] = []
        var pendingCPU: [Double] = []
        var sentCPU: [Double] = []
        for index in 0..<sends {
            let text = "message \(index)"
            let mark = probe.mark()
            let start = Bench.now()
            let cpuStart = Bench.cpuNow()
            alice.dispatch(.sendMessage(chatID: chatID, content: text))
            try await probe.until(alice, after: mark) { $0.currentChat?.messages.last?.content == text }
            pending.append(Double(Bench.now() - start))
            pendingCPU.append(Double(Bench.cpuNow() - cpuStart))
            try await probe.until(alice) { $0.currentChat?.messages.last?.delivery == .sent }
            sent.append(Double(Bench.now() - start))
            sentCPU.append(Double(Bench.cpuNow() - cpuStart))
        }
        report("sendMessage → Pending shown", pending, cpu: pendingCPU)
        report("sendMessage → Sent shown (relay OK)", sent, cpu: sentCPU)
        alice.dispatch(.logout)
        bob.dispatch(.logout)
    }

    // MARK: Cold start

    static func coldStart(relay: URL, root: URL, messagesPerChat: Int, logger: Logger) async throws {
        let total = chatCount * messagesPerChat
        let directory = root.appendingPathComponent("history-\(total)")
        let keysFile = directory.appendingPathComponent("nsec")
        let keys: Keys
        if let text = try? String(contentsOf: keysFile, encoding: .utf8), let kept = try? Keys(importing: text) {
            keys = kept
            print("history reused: \(chatCount) chats, \(total) messages (\(directory.path))")
        } else {
            try? FileManager.default.removeItem(at: directory)
            let setupStart = Bench.now()
            keys = try await seedHistory(directory: directory, relay: relay, messagesPerChat: messagesPerChat, logger: logger)
            try keys.secretKey.nsecEncoded().write(to: keysFile, atomically: true, encoding: .utf8)
            print(String(format: "history seeded: %d chats, %d messages in %.1f s", chatCount, total,
                         Double(Bench.now() - setupStart) / 1e9))
        }
        var firstUpdate: [Double] = []
        var listed: [Double] = []
        var opened: [Double] = []
        var listedCPU: [Double] = []
        var openedCPU: [Double] = []
        for _ in 0..<coldStarts {
            let start = Bench.now()
            let cpuStart = Bench.cpuNow()
            let (app, probe) = makeApp(directory, relay: relay)
            app.dispatch(.restoreSession(nsec: keys.secretKey.nsecEncoded()))
            try await probe.until(app) { _ in true }
            firstUpdate.append(Double(Bench.now() - start))
            try await probe.until(app) { $0.chatList.count == chatCount && !$0.busy.restoringSession }
            listed.append(Double(Bench.now() - start))
            listedCPU.append(Double(Bench.cpuNow() - cpuStart))
            guard let chatID = app.state().chatList.first?.chatID else { throw BenchSkip("no chats") }
            let openStart = Bench.now()
            let openCPU = Bench.cpuNow()
            app.dispatch(.pushScreen(.chat(chatID: chatID)))
            try await probe.until(app) { $0.currentChat?.messages.count == 50 }
            opened.append(Double(Bench.now() - openStart))
            openedCPU.append(Double(Bench.cpuNow() - openCPU))
            app.dispatch(.logout)
            try await until("logged out") { !app.state().auth.isLoggedIn }
            try await Task.sleep(for: .milliseconds(200))
        }
        report("cold start → first update", firstUpdate)
        report("cold start → chat list of \(chatCount) (\(total) messages)", listed, cpu: listedCPU)
        report("open chat → newest 50 of \(messagesPerChat) shown", opened, cpu: openedCPU)
        print("resident memory after the runs: \(residentMegabytes()) MB")
    }

    /// An account with `chatCount` real 1:1 chats (peers on the relay) and `messagesPerChat` stored
    /// messages in each, written where the app's messaging service keeps them.
    static func seedHistory(directory: URL, relay: URL, messagesPerChat: Int, logger: Logger) async throws -> Keys {
        let keys = Keys.generate()
        let accountDirectory = directory.appendingPathComponent(keys.publicKey.hex, isDirectory: true)
        try FileManager.default.createDirectory(at: accountDirectory, withIntermediateDirectories: true)
        let store = try GRDBMarmotStore(
            path: accountDirectory.appendingPathComponent("marmot.sqlite").path,
            key: StorageKey(deriving: keys.secretKey, installationSecret: installationSecret))
        let pool = RelayPool(relays: [relay.absoluteString], logger: logger)
        let me = MarmotClient(keys: keys, store: store, pool: pool, relays: [try RelayURL(relay.absoluteString)], logger: logger)
        try await me.start()
        let base = UnsignedEvent.now() - Int64(messagesPerChat)
        for chatIndex in 0..<chatCount {
            // A client holds one subscription per chat made in this run; restarting folds them into one.
            if chatIndex > 0, chatIndex % 10 == 0 {
                await me.stop()
                try await me.start()
            }
            let peer = try await MarmotProtocolBench.startPeer(url: relay.absoluteString, logger: logger)
            _ = try await peer.client.publishKeyPackage()
            let chat = try await me.createChat(with: peer.client.publicKey).chat
            await MarmotProtocolBench.stopPeers([peer])
            for index in 0..<messagesPerChat {
                let mine = index % 2 == 0
                let rumor = try ChatRumor(
                    author: mine ? keys.publicKey : peer.client.publicKey, content: "history message \(index)",
                    kind: .chatMessage, tags: [], createdAt: base + Int64(index))
                try store.saveMessage(StoredMessage(
                    rumor: rumor, mlsGroupID: chat.id, isMine: mine, deliveryState: mine ? .sent : .received,
                    outerEventID: nil))
            }
            try store.markGroupRead(mlsGroupID: chat.id)
        }
        await me.stop()
        await pool.disconnect()
        try store.close()
        return keys
    }

    // MARK: Helpers

    /// Prints the median and p99 wall time, and with `cpu` the median process CPU time of the
    /// same samples (every thread: the core, the client, the store, the embedded relay).
    static func report(_ name: String, _ samples: [Double], cpu: [Double] = []) {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return }
        let median = sorted[sorted.count / 2]
        let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        let cpuSorted = cpu.sorted()
        let cpuText = cpuSorted.isEmpty ? "" : String(format: "; cpu %.3f ms", cpuSorted[cpuSorted.count / 2] / 1e6)
        print(Bench.line(name, perCallNanos: median, iterations: sorted.count)
            + String(format: "  median; p99 %.2f ms", p99 / 1e6) + cpuText)
    }

    static func until(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = Bench.now() + 60_000_000_000
        while !condition() {
            if Bench.now() > deadline { throw BenchSkip("timed out: \(what)") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    static func residentMegabytes() -> String {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return "?" }
        let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
        return String(format: "%.0f", kilobytes / 1024)
    }
}

/// A renderer stand-in: wakes waiters as each update arrives (the time a real renderer would see it).
final class UpdateProbe: AppReconciler, @unchecked Sendable {
    private let lock = NSLock()
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var seen = 0

    func reconcile(_ update: AppUpdate) {
        let ready = lock.withLock {
            seen += 1
            defer { waiters = [] }
            return waiters
        }
        ready.forEach { $0.resume() }
    }

    /// How many updates have arrived so far.
    func mark() -> Int { lock.withLock { seen } }

    /// Returns once an update has arrived after `mark` and the app's committed state satisfies `condition`.
    func until(_ app: MarmotApp, after mark: Int = 0, _ condition: (AppState) -> Bool) async throws {
        let deadline = Bench.now() + 60_000_000_000
        while true {
            let count = lock.withLock { seen }
            if count > mark, condition(app.state()) { return }
            if Bench.now() > deadline { throw BenchSkip("timed out waiting for an update") }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let arrived = lock.withLock {
                    if seen != count { return true }
                    waiters.append(continuation)
                    return false
                }
                if arrived { continuation.resume() }
            }
        }
    }
}
