import Foundation
import Testing

/// `marmot demo` runs the offline demo.
@Suite(.timeLimit(.minutes(3)))
struct DemoCommandTests {
    @Test func demoRunsTheConversation() async throws {
        let home = try TestHome("demo")
        defer { home.remove() }
        let result = try await CLI.run(["demo"], home: home, timeout: 150)
        #expect(result.status == 0, "\(result)")
        // Bob is invited and accepts, as a user does; nothing joins on its own.
        let inviteLine = try #require(result.lines.firstIndex { $0.contains("bob") && $0.contains("invites you to a chat") }, "\(result.stdout)")
        let acceptLine = try #require(result.lines.firstIndex { $0.contains("bob") && $0.contains("accepted the invitation from alice") }, "\(result.stdout)")
        #expect(inviteLine < acceptLine)
        for text in ["Hi Bob!", "Hi Alice!", "only ever stored ciphertext", "See you on Marmot!"] {
            #expect(result.stdout.contains(text), "transcript lacks \(text): \(result.stdout)")
        }
        let sent = result.lines.filter { $0.contains("sent") && $0.contains("ms") }
        #expect(sent.count >= 4, "\(result.stdout)")
        #expect(result.lines.filter { $0.contains("received by") }.count == 4, "\(result.stdout)")
        #expect(result.stdout.contains("✓ sent"))
        // Nothing is left in the user's home.
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty)
    }

    /// Bare `marmot` is the interactive client; without a terminal it says what to run instead.
    @Test func bareMarmotWithoutATerminalPointsToTheDemo() async throws {
        let home = try TestHome("bare")
        defer { home.remove() }
        let result = try await CLI.run([], home: home, timeout: 60)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("needs a terminal"), "\(result)")
        #expect(result.stderr.contains("marmot demo"), "\(result)")
    }
}
