import Foundation

/// One JSON object line from `mdk_peer.py` (a reply with `ok`, or an `event`).
public struct PeerLine: @unchecked Sendable, CustomStringConvertible {
    public let object: [String: Any]

    public subscript(key: String) -> Any? { object[key] }
    public func string(_ key: String) -> String? { object[key] as? String }
    public func int(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
    public func double(_ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }
    public var event: String? { string("event") }

    public var description: String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "\(object)" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The MDK 0.8.0 peer of the interop kit (`shared/interop/mdk_peer.py`), driven over JSON lines:
/// replies come in command order, events in between; both are sorted into their own inboxes.
public final class MDKPeer: Sendable {
    public let name: String
    private let process: ChildProcess
    private let replies = Inbox<PeerLine>()
    public let events = Inbox<PeerLine>()
    private let reader: Task<Void, Never>
    private let errorLog = ErrorLog()

    /// Starts the peer and waits for its `ready` event. `script` may be a wrapper of `mdk_peer.py`
    /// that adds commands (e.g. `scripts/interop/mdk_media_peer.py`); it is given `MARMOT_SHARED`.
    public init(_ name: String, script: String = InteropKit.mdkPeer) async throws {
        self.name = name
        process = try ChildProcess(
            "mdk_peer.py(\(name))", executable: InteropKit.python, arguments: [script],
            environment: ["MARMOT_SHARED": SharedFixtures.sharedRoot.path], interactive: true)
        let process = self.process, replies = self.replies, events = self.events, errorLog = self.errorLog
        reader = Task {
            while !Task.isCancelled {
                guard let object = await process.nextJSON(timeout: 1) else {
                    if process.isRunning { continue } else { break }
                }
                let line = PeerLine(object: object)
                if line["ok"] != nil {
                    await replies.put(line)
                } else {
                    if line.event == "error" { await errorLog.append(line) }
                    await events.put(line)
                }
            }
        }
        guard let ready = await events.first(timeout: 20, where: { $0.event == "ready" || $0.event == "fatal" }),
              ready.event == "ready"
        else {
            await stop()
            throw InteropError.peer("\(name) did not become ready")
        }
    }

    /// Sends a command and returns its reply; throws when the reply says `ok: false` or none comes.
    @discardableResult
    public func call(_ command: [String: Any], timeout: Double = 30) async throws -> PeerLine {
        var command = command
        if command["timeout"] == nil { command["timeout"] = timeout }
        let data = try JSONSerialization.data(withJSONObject: command)
        guard process.send(String(decoding: data, as: UTF8.self)) else { throw InteropError.peer("\(name): stdin closed") }
        guard let reply = await replies.next(timeout: timeout + 5) else {
            throw InteropError.peer("\(name): no reply to \(command["cmd"] ?? "?")")
        }
        guard reply["ok"] as? Bool == true else { throw InteropError.peer("\(name): \(reply)") }
        return reply
    }

    /// Waits for the first event named `name` that satisfies `predicate`; other events are skipped.
    public func waitForEvent(
        _ event: String, timeout: Double = 20, where predicate: @escaping @Sendable (PeerLine) -> Bool = { _ in true }
    ) async throws -> PeerLine {
        guard let line = await events.first(timeout: timeout, where: { $0.event == event && predicate($0) }) else {
            let errors = await errorLog.lines
            throw InteropError.peer("\(name): no \(event) event within \(timeout) s; MDK errors so far: \(errors)")
        }
        return line
    }

    /// Every `error` event the peer reported (what MDK rejected).
    public var reportedErrors: [PeerLine] { get async { await errorLog.lines } }

    /// `quit`, then SIGTERM/SIGKILL if needed.
    public func stop() async {
        _ = process.send(#"{"cmd":"quit"}"#)
        if await process.exitStatus(timeout: 5) == nil { await process.stop() }
        reader.cancel()
    }
}

private actor ErrorLog {
    var lines: [PeerLine] = []
    func append(_ line: PeerLine) { lines.append(line) }
}
