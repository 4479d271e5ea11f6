import Foundation
import Testing
import Nostr
@testable import MarmotCore

/// Drives the actor directly, one reduction at a time, for orderings the queue makes unlikely.
@Suite("AppCore")
struct AppCoreTests {
    struct Fixture {
        let core: AppCore
        let snapshot: LockedValue<AppState>
        let directory: URL

        init() {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-core-\(UUID().uuidString)")
            let (_, inbox) = AsyncStream<CoreMessage>.makeStream()
            let (_, updates) = AsyncStream<AppUpdate>.makeStream()
            snapshot = LockedValue(AppState.initial)
            core = AppCore(dataDirectory: directory, configuration: AppConfiguration(), inbox: inbox,
                           updateSink: updates, snapshot: snapshot)
        }

        func prepared(_ keys: Keys) -> PreparedSession {
            PreparedSession(keys: keys, directory: directory.appendingPathComponent(keys.publicKey.hex))
        }
    }

    @Test("a login result arriving after logout is dropped")
    func lateLoginResultDropped() async {
        let f = Fixture()
        let keys = Keys.generate()
        await f.core.handle(.action(.login(nsec: keys.secretKey.nsecEncoded())))
        #expect(f.snapshot.get().busy.loggingIn)
        await f.core.handle(.action(.logout))
        await f.core.handle(.event(.sessionPrepared(attempt: 1, kind: .login, .success(f.prepared(keys)))))
        let state = f.snapshot.get()
        #expect(state.auth == .loggedOut)
        #expect(state.busy == BusyState())
    }

    @Test("events of an ended session are dropped")
    func staleSessionEvents() async throws {
        let f = Fixture()
        let first = Keys.generate()
        await f.core.handle(.action(.login(nsec: first.secretKey.nsecEncoded())))
        await f.core.handle(.event(.sessionPrepared(attempt: 1, kind: .login, .success(f.prepared(first)))))
        #expect(f.snapshot.get().auth.isLoggedIn)
        await f.core.handle(.action(.logout))
        let second = Keys.generate()
        await f.core.handle(.action(.login(nsec: second.secretKey.nsecEncoded())))
        await f.core.handle(.event(.sessionPrepared(attempt: 3, kind: .login, .success(f.prepared(second)))))
        let rev = f.snapshot.get().rev
        let info = ChatInfo(chatID: "stale", peer: Keys.generate().publicKey, createdAt: 0)
        await f.core.handle(.event(.chatsLoaded(session: 1, [info])))
        await f.core.handle(.event(.serviceFailed(session: 1, operation: "start", ServiceError(TestServiceError(description: "old")))))
        #expect(f.snapshot.get().rev == rev)
        await f.core.handle(.event(.chatsLoaded(session: 2, [info])))
        #expect(f.snapshot.get().chatList.map(\.chatID) == ["stale"])
    }

    @Test("a reduction that changes nothing commits nothing")
    func noChangeNoRev() async {
        let f = Fixture()
        await f.core.handle(.action(.clearToast))
        await f.core.handle(.action(.updateScreenStack([])))
        await f.core.handle(.action(.foregrounded))
        #expect(f.snapshot.get().rev == 0)
    }
}
