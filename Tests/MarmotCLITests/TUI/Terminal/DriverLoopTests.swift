import Foundation
import MarmotAppKit
import MarmotCore
import Testing

@testable import MarmotCLI

/// The driver's loop over a real core and manager, with the terminal replaced by a size and an
/// output buffer.
@MainActor
struct DriverLoopTests {
    @MainActor
    final class FakeTerminal {
        var size = TerminalSize.standard
        var output: [String] = []

        /// Everything written since the last call.
        func take() -> String {
            defer { output = [] }
            return output.joined()
        }
    }

    @MainActor
    final class Harness {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-tui-\(UUID().uuidString)")
        let terminal = FakeTerminal()
        let manager: AppManager
        var loop: DriverLoop

        init() {
            manager = AppManager(
                core: MarmotApp(
                    dataDirectory: directory,
                    configuration: AppConfiguration(logLevel: .warning, toastDuration: .milliseconds(50))),
                secretStore: InMemorySecretStore())
            let terminal = self.terminal
            loop = DriverLoop(
                manager: manager, statusLine: { "status: test" }, measure: { terminal.size },
                write: { terminal.output.append($0) })
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// What the driver does per event: handle it, then draw.
        func send(_ events: TUIEvent...) {
            for event in events {
                loop.handle(event)
                loop.draw()
            }
        }

        func settle(_ what: String, _ condition: (AppState) -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while !condition(manager.state) {
                guard ContinuousClock.now < deadline else { throw TUIAppDrivenTests.TimedOut(what: what) }
                try await Task.sleep(for: .milliseconds(5))
                loop.draw()
            }
            loop.draw()
        }

        func loggedIn() async throws {
            loop.draw()
            send(.key(.character("c")))
            try await settle("logged in") { $0.auth.isLoggedIn && !$0.busy.creatingAccount }
        }
    }

    @Test func drawsOnlyWhatChanged() async throws {
        let app = Harness()
        app.loop.draw()
        let first = app.terminal.take()
        #expect(first.hasPrefix("\u{1B}[0m\u{1B}[2J"))
        #expect(first.contains("Create a new account"))
        #expect(first.contains("status: test"))
        app.send(.tick, .tick)
        #expect(app.terminal.take().isEmpty)
        app.send(.key(.down))
        let moved = app.terminal.take()
        #expect(!moved.contains("\u{1B}[2J"))
        #expect(moved.contains("Import an existing key"))
        #expect(!moved.contains("Welcome"))
    }

    @Test func stateChangesFromTheCoreAreDrawn() async throws {
        let app = Harness()
        try await app.loggedIn()
        let output = app.terminal.output.joined()
        guard case .loggedIn(let npub, _) = app.manager.state.auth else { throw TUIAppDrivenTests.TimedOut(what: "npub") }
        #expect(output.contains("Your npub: "))
        #expect(output.contains(npub))
    }

    @Test func resizeRedrawsEverythingAtTheNewSize() async throws {
        let app = Harness()
        app.loop.draw()
        _ = app.terminal.take()
        app.terminal.size = TerminalSize(columns: 50, rows: 15)
        app.send(.tick)
        let redrawn = app.terminal.take()
        #expect(redrawn.hasPrefix("\u{1B}[0m\u{1B}[2J"))
        #expect(redrawn.contains("\u{1B}[15;1H"))
        #expect(!redrawn.contains("\u{1B}[16;1H"))
        #expect(app.loop.ui.size == TerminalSize(columns: 50, rows: 15))
    }

    @Test func ctrlLRedrawsTheWholeScreen() {
        let app = Harness()
        app.loop.draw()
        _ = app.terminal.take()
        app.send(.key(.control("l")))
        #expect(app.terminal.take().hasPrefix("\u{1B}[0m\u{1B}[2J"))
    }

    @Test func toastsClearThemselves() async throws {
        let app = Harness()
        try await app.loggedIn()
        app.send(.key(.character("n")))
        try await app.settle("new chat") { $0.router.topScreen == .newChat }
        app.send(.key(.character("x")), .key(.enter))
        try await app.settle("toast") { $0.toast != nil }
        #expect(app.terminal.output.joined().contains("Invalid npub"))
        try await app.settle("toast cleared by the timer") { $0.toast == nil }
    }

    @Test func quitAndCtrlCEndTheLoop() {
        let app = Harness()
        app.send(.quit)
        #expect(app.loop.ui.shouldQuit)
        let other = Harness()
        other.send(.key(.control("c")))
        #expect(other.loop.ui.shouldQuit)
        #expect(other.manager.state.rev == 0)
    }
}
