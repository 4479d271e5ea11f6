import Foundation
import MarmotCore

/// The scripted conversation of `marmot demo`, driven only through actions and state: each side is
/// a `CLISession` (its own `MarmotApp`, home and secret store) on one shared embedded relay.
@MainActor
enum DemoFlow {
    static let script: [(from: Side, text: String)] = [
        (.alice, "Hi Bob! This chat is end-to-end encrypted with MLS."),
        (.bob, "Hi Alice! It reached me as a Nostr event only I can decrypt."),
        (.alice, "And the relay only ever stored ciphertext."),
        (.bob, "Nice. See you on Marmot!"),
    ]

    enum Side: String {
        case alice, bob
        var name: String { rawValue.capitalized }
        var other: Side { self == .alice ? .bob : .alice }
    }

    /// One line of the transcript (`--json`).
    struct Event: Encodable {
        let step: String
        let who: String?
        let text: String?
        let delivery: String?
        let detail: String?
        let ms: Int
        let atMs: Int
    }

    static func run(_ invocation: Invocation) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("marmot-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let printer = Printer(json: invocation.json)
        printer.heading("Marmot demo: two identities, one embedded relay, no network")

        let relay = try await EmbeddedRelay.start(database: nil, portFile: nil, logLevel: invocation.logLevel)
        printer.step("relay", detail: "embedded relay at \(relay.url.absoluteString) (in memory)", since: nil)
        var sessions: [Side: CLISession] = [:]
        for side in [Side.alice, .bob] {
            let home = root.appendingPathComponent(side.rawValue, isDirectory: true)
            var configuration = CLISession.Configuration(
                home: home, relays: RelayPlan(urls: [relay.url], source: .option), logLevel: invocation.logLevel)
            configuration.announceEmbeddedRelay = false
            sessions[side] = try await CLISession.open(configuration)
        }
        guard let alice = sessions[.alice], let bob = sessions[.bob] else { return }

        // Accounts: the nsec goes to each home's 0600 file, the npub is all the other side needs.
        let accountsStarted = ContinuousClock.now
        alice.dispatch(.createAccount)
        bob.dispatch(.createAccount)
        let aliceAccount = try await alice.untilLoggedIn("Alice's account")
        let bobAccount = try await bob.untilLoggedIn("Bob's account")
        printer.step("accounts", who: "alice", detail: aliceAccount.npub, since: accountsStarted)
        printer.step("accounts", who: "bob", detail: bobAccount.npub, since: accountsStarted)
        // Bob's key package must be on the relay before Alice looks for it; Alice's own start-up is
        // awaited by the core when she creates the chat.
        let online = ContinuousClock.now
        try await bob.untilOnline()
        printer.step("online", who: "bob", detail: "connected, key package published", since: online)

        // Alice starts the chat from Bob's npub and invites him (a welcome).
        let invite = ContinuousClock.now
        let aliceChat = try await alice.openChat(with: bobAccount.npub)
        printer.step(
            "chat", who: "alice", detail: "started chat \(aliceChat.chatID.rawValue.prefix(16))… with Bob (key package fetched, MLS group created, welcome sent)",
            since: invite)
        // Bob sees the invitation in his list and accepts it, as a user does; the core joins and opens the chat.
        let invitation = try await bob.until("Bob to receive Alice's invitation", timeout: .seconds(60)) { (state: AppState) -> InviteSummary? in
            state.invites.first { $0.inviterNpub == aliceAccount.npub }
        }
        printer.step("invite", who: "bob", detail: "invitation: \(invitation.title)", since: invite)
        let accepted = ContinuousClock.now
        guard let bobChat = try await bob.answer(invitation, accept: true) else {
            throw CLIError(.failure, "Bob's accepted chat did not open")
        }
        printer.step("chat", who: "bob", detail: "accepted the invitation from alice (joined the MLS group from the welcome)", since: accepted)
        let chats: [Side: ChatID] = [.alice: aliceChat.chatID, .bob: bobChat.chatID]

        // The conversation.
        var durations: [Int] = []
        for (from, text) in script {
            guard let sender = sessions[from], let receiver = sessions[from.other], let chatID = chats[from],
                let peerChat = chats[from.other]
            else { continue }
            printer.message(from, text)
            let known = Set(receiver.state.currentChat?.messages.map(\.id) ?? [])
            let start = ContinuousClock.now
            let pending = try await sender.send(text, in: chatID)
            printer.delivery("pending", since: start)
            let delivered = try await sender.untilDelivered(pending, in: chatID)
            if case .failed(let reason) = delivered.delivery {
                throw CLIError(.notSent, "\(from.name)'s message was not sent: \(reason)")
            }
            printer.delivery("sent", since: start)
            _ = try await receiver.until("\(from.other.name) to receive \"\(text)\"", timeout: .seconds(60)) { (state: AppState) -> ChatMessage? in
                guard let chat = state.currentChat, chat.chatID == peerChat else { return nil }
                return chat.messages.last { !$0.isMine && $0.content == text && !known.contains($0.id) }
            }
            let total = start.duration(to: .now).milliseconds
            durations.append(total)
            printer.delivery("received by \(from.other.name)", since: start)
        }

        printer.transcript(alice.state.currentChat, me: "Alice", peer: "Bob")
        let average = durations.isEmpty ? 0 : durations.reduce(0, +) / durations.count
        printer.step(
            "done", detail: "\(durations.count) messages, \(average) ms on average from send to the peer's screen; temporary homes removed",
            since: printer.started)
        for session in [alice, bob] { await session.close() }
        await relay.stop()
    }

    /// Writes the transcript as text, or as JSON lines with `--json`.
    @MainActor
    final class Printer {
        let json: Bool
        let started = ContinuousClock.now
        private var lastMessage: (who: String, text: String)?

        init(json: Bool) { self.json = json }

        private var elapsed: Int { started.duration(to: .now).milliseconds }

        func heading(_ text: String) {
            if !json { Output.line(text) }
        }

        func step(_ step: String, who: String? = nil, detail: String, since: ContinuousClock.Instant?) {
            let ms = since.map { $0.duration(to: .now).milliseconds } ?? 0
            if json {
                Output.json(Event(step: step, who: who, text: nil, delivery: nil, detail: detail, ms: ms, atMs: elapsed))
            } else {
                let timing = since == nil ? "" : "  (\(ms) ms)"
                Output.line("  \(pad(who ?? step, 6)) \(detail)\(timing)")
            }
        }

        func message(_ from: Side, _ text: String) {
            lastMessage = (from.rawValue, text)
            if !json { Output.line("\n  \(from.name) → \(from.other.name): \"\(text)\"") }
        }

        func delivery(_ state: String, since start: ContinuousClock.Instant) {
            let ms = start.duration(to: .now).milliseconds
            if json {
                Output.json(Event(step: "message", who: lastMessage?.who, text: lastMessage?.text, delivery: state,
                                  detail: nil, ms: ms, atMs: elapsed))
            } else {
                Output.line("      \(pad(state, 18)) +\(ms) ms")
            }
        }

        func transcript(_ chat: ChatViewState?, me: String, peer: String) {
            guard let chat, !json else { return }
            Output.line("\nTranscript (as \(me)'s app shows it):")
            for message in chat.messages {
                if message.kind == .system {
                    Output.line("  \(message.displayTimestamp)  · \(message.content) ·")
                    continue
                }
                let mark =
                    switch message.delivery {
                    case .pending: "… pending"
                    case .sent: message.isMine ? "✓ sent" : ""
                    case .failed(let reason): "✗ failed: \(reason)"
                    }
                let line = "  \(message.displayTimestamp)  \(pad(message.isMine ? me : peer, 5))  \(message.content)"
                Output.line(mark.isEmpty ? line : "\(line)  \(mark)")
            }
            Output.line("")
        }

        private func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
        }
    }
}
