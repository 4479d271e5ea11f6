import Foundation
import Testing
import Nostr
@testable import MarmotCore

@Suite("Auth")
struct AuthTests {
    @Test("create account: accountCreated comes first with its rev, then logged in on the chat list")
    func createAccountNavigatesToChatList() async throws {
        let h = AppHarness()
        #expect(h.state().router.defaultScreen == .login)
        #expect(h.state().auth == .loggedOut)
        #expect(h.state().rev == 0)

        h.dispatch(.createAccount)
        try await h.waitFor("logged in") { $0.auth.isLoggedIn && !$0.busy.creatingAccount }
        try await h.waitForListener()

        let updates = h.recorder.updates
        let createdIndex = try #require(updates.firstIndex { if case .accountCreated = $0 { true } else { false } })
        let loggedInIndex = try #require(updates.firstIndex { update in
            switch update {
            case .fullState(let s): s.auth.isLoggedIn
            case .authChanged(_, let auth): auth.isLoggedIn
            default: false
            }
        })
        #expect(createdIndex < loggedInIndex)
        guard case .accountCreated(let rev, let nsec, let pubkey, let npub) = updates[createdIndex] else { return }
        #expect(rev == UInt64(createdIndex + 1))
        let keys = try Keys(importing: nsec)
        #expect(keys.publicKey.hex == pubkey)
        #expect(keys.publicKey.npub == npub)

        // Busy while working, cleared after.
        #expect(updates.first == .busyChanged(rev: 1, busy: BusyState(creatingAccount: true)))
        let state = h.state()
        #expect(state.auth == .loggedIn(npub: npub, pubkey: pubkey))
        #expect(state.router == Router(defaultScreen: .chatList, screenStack: []))
        #expect(state.busy == BusyState())
        #expect(state.toast == nil)
        #expect(h.recorder.mirror(from: .initial) == state)
    }

    @Test("account directory is created under the data directory, named by the hex pubkey")
    func accountDirectory() async throws {
        let h = AppHarness(messaging: false)
        let (pubkey, _) = try await h.createAccount()
        var isDirectory: ObjCBool = false
        let path = h.directory.appendingPathComponent(pubkey).path
        #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)
    }

    @Test("login with a valid nsec logs in as that key")
    func loginWithNsec() async throws {
        let h = AppHarness()
        let keys = Keys.generate()
        h.dispatch(.login(nsec: keys.secretKey.nsecEncoded()))
        try await h.waitFor("logged in") { $0.auth.isLoggedIn }
        #expect(h.state().auth == .loggedIn(npub: keys.publicKey.npub, pubkey: keys.publicKey.hex))
        #expect(h.state().router.defaultScreen == .chatList)
        try await h.waitForListener()
        #expect(h.recorder.createdNsec == nil, "login must not hand out the secret again")
        let sawBusy = h.recorder.updates.contains { update in
            if case .busyChanged(_, let busy) = update { busy.loggingIn } else { false }
        }
        #expect(sawBusy)
        #expect(h.state().busy == BusyState())
    }

    @Test("restore session stays restoringSession until the stored chat list is in, and logs in")
    func restoreSession() async throws {
        let h = AppHarness()
        let keys = Keys.generate()
        h.dispatch(.restoreSession(nsec: keys.secretKey.nsecEncoded()))
        try await h.waitFor("restored") { $0.auth.isLoggedIn && !$0.busy.restoringSession }
        try await h.waitForListener()
        let busyWhileLoggedIn = h.recorder.updates.contains { update in
            guard case .fullState(let state) = update else { return false }
            return state.auth.isLoggedIn && state.busy.restoringSession
        }
        #expect(busyWhileLoggedIn)
        #expect(h.recorder.updates.first == .busyChanged(rev: 1, busy: BusyState(restoringSession: true)))
        #expect(h.state().auth == .loggedIn(npub: keys.publicKey.npub, pubkey: keys.publicKey.hex))
        #expect(h.state().busy == BusyState())
        #expect(h.service?.context.keys.publicKey == keys.publicKey)
    }

    @Test("invalid nsec: toast, stays on Login, busy cleared", arguments: [
        "", "nsec1notreallyakey", "npub1sn0wdenkukak0d9dfczzeacvhkrgz92ak56egt7vdgzn8pv2wfqqhrjdv9",
        String(repeating: "0", count: 64),
    ])
    func invalidNsec(input: String) async throws {
        let h = AppHarness()
        h.dispatch(.login(nsec: input))
        try await h.waitFor("toast") { $0.toast != nil && !$0.busy.loggingIn }
        let state = h.state()
        #expect(state.toast?.hasPrefix("Invalid nsec") == true)
        #expect(state.auth == .loggedOut)
        #expect(state.router == Router(defaultScreen: .login))
        #expect(state.busy == BusyState())
        #expect(h.serviceCount == 0)
    }

    @Test("logout clears state and returns to Login; the service is stopped")
    func logoutClears() async throws {
        let h = AppHarness()
        try await h.createAccount()
        _ = try await h.createChat()
        h.dispatch(.createChat(peerNpub: "bogus"))
        try await h.waitFor("toast") { $0.toast != nil }
        let service = try #require(h.service)

        h.dispatch(.logout)
        try await h.waitFor("logged out") { !$0.auth.isLoggedIn }
        let state = h.state()
        #expect(state.router == Router(defaultScreen: .login, screenStack: []))
        #expect(state.chatList.isEmpty)
        #expect(state.currentChat == nil)
        #expect(state.toast == nil)
        #expect(state.busy == BusyState())
        try await waitUntil("service stopped") { await service.stopped }

        // Logging in again starts a new session with a new service.
        h.dispatch(.createAccount)
        try await h.waitFor("logged in again") { $0.auth.isLoggedIn }
        #expect(h.serviceCount == 2)
    }

    @Test("logout during a login drops the login's late result")
    func logoutCancelsLogin() async throws {
        let h = AppHarness()
        h.dispatch(.login(nsec: Keys.generate().secretKey.nsecEncoded()))
        h.dispatch(.logout)
        h.dispatch(.clearToast)
        // A later action proves the queue moved on; the login result is either dropped or was
        // applied before logout, and both end logged out.
        try await h.waitForListener()
        try await waitUntil("settled") { h.state().busy == BusyState() }
        #expect(h.state().auth == .loggedOut)
    }

    @Test("the nsec is never written to disk nor logged")
    func secretsStayInMemory() async throws {
        let h = AppHarness()
        try await h.createAccount()
        try await h.waitForListener()
        let nsec = try #require(h.recorder.createdNsec)
        let hexSecret = try Keys(importing: nsec).secretKey.hexEncodedSecret()

        // A login with another key, to cover the login path too.
        let other = Keys.generate()
        h.dispatch(.logout)
        h.dispatch(.login(nsec: other.secretKey.nsecEncoded()))
        try await h.waitFor("second login") { $0.auth == .loggedIn(npub: other.publicKey.npub, pubkey: other.publicKey.hex) }
        try await waitUntil("service started") { await h.service?.started ?? false }

        let secrets = [nsec, hexSecret, other.secretKey.nsecEncoded(), other.secretKey.hexEncodedSecret()]
        let files = h.filesOnDisk()
        #expect(!files.isEmpty, "the service wrote its context; the grep must have something to read")
        for (path, contents) in files {
            let text = String(decoding: contents, as: UTF8.self)
            for secret in secrets { #expect(!text.contains(secret), "secret found in \(path)") }
        }
        for update in h.recorder.updates {
            for secret in secrets {
                #expect(!"\(update)".contains(secret))
                #expect(!String(reflecting: update).contains(secret))
            }
        }
        let logs = h.logs.all
        #expect(!logs.isEmpty)
        for line in logs {
            for secret in secrets { #expect(!line.contains(secret), "secret found in log line") }
        }
    }
}
