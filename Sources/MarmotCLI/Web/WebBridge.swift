import Foundation
import HummingbirdWebSocket
import Logging
import MarmotAppKit
import MarmotContract
import MarmotCore

/// Connects each browser page to the session: state and updates out, actions in.
///
/// Why so little: the page is a renderer. It keeps the rev rule itself (it may resync); the bridge
/// only translates between the WebSocket and the contract, keeps the nsec out of everything it sends
/// (accountCreated goes out with `"nsec": null`; the manager has already stored the secret), and
/// hands the nsec out only on an explicit, confirmed `exportNsec`.
final class WebBridge: Sendable {
    let session: CLISession
    let logger: Logger

    init(session: CLISession, logger: Logger) {
        self.session = session
        self.logger = logger
    }

    /// Serves one page's WebSocket until it closes.
    func serve(inbound: WebSocketInboundMessageStream, outbound: WebSocketOutboundWriter) async {
        // Subscribe before reading the snapshot: no update can fall between them, stale ones the
        // page drops by rev.
        let updates = await MainActor.run { session.updates() }
        let (outgoing, sink) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        sink.yield(await stateMessage())
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await text in outgoing {
                    do { try await outbound.write(.text(text)) } catch { break }
                }
            }
            group.addTask {
                for await update in updates {
                    sink.yield(ContractJSON.string(["kind": "update", "update": ContractJSON.redactedUpdateObject(update)]))
                }
            }
            do {
                for try await message in inbound {
                    guard case .text(let text) = message else { continue }
                    if let reply = await handle(text) { sink.yield(reply) }
                }
            } catch {
                logger.debug("web: socket read ended", metadata: ["error": "\(error)"])
            }
            sink.finish()
            group.cancelAll()
        }
    }

    /// The mirrored state as `{"kind":"state","state":…}`.
    func stateMessage() async -> String {
        let state = await MainActor.run { session.state }
        return ContractJSON.string(["kind": "state", "state": ContractJSON.stateObject(state)])
    }

    /// One message from the page; returns the reply to send, if any.
    func handle(_ text: String) async -> String? {
        guard let data = text.data(using: .utf8),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let kind = object["kind"] as? String
        else { return Self.error("invalid message") }
        switch kind {
        case "resync":
            return await stateMessage()
        case "action":
            guard let actionObject = object["action"] as? [String: Any] else { return Self.error("missing action") }
            let action: AppAction
            do { action = try ContractJSON.action(from: actionObject) } catch { return Self.error("\(error)") }
            // The server restores the stored account itself; the page never holds a stored nsec.
            if case .restoreSession = action { return Self.error("restoreSession is not accepted from the page") }
            logger.info("web: action", metadata: ["action": "\(action)"])
            await MainActor.run { session.manager.dispatch(action) }
            return nil
        case "exportNsec":
            guard object["confirm"] as? Bool == true else { return Self.error("export needs confirm: true") }
            let stored: String?
            do { stored = try session.secretStore.load() } catch { return Self.error("cannot read the secret store") }
            guard let stored else { return Self.error("no account stored") }
            logger.notice("web: nsec exported to the page at the user's request")
            return ContractJSON.string(["kind": "exportedNsec", "nsec": stored])
        default:
            return Self.error("unknown kind")
        }
    }

    static func error(_ message: String) -> String {
        ContractJSON.string(["kind": "error", "message": message])
    }
}
