import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A raw HTTP/1.1 client socket to 127.0.0.1 for what URLSession will not do: announce a body far
/// larger than it sends, stop in the middle of an upload, and check that the server stops reading.
///
/// Blocking calls run on a thread of their own (never on Swift's cooperative pool, which the relay
/// under test needs).
final class HTTPSocket: @unchecked Sendable {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var closed = false

    init(port: Int, timeout: Int = 60) throws {
        descriptor = try HandshakeSocket.connectLoopback(port: port, timeout: timeout, sendTimeout: true)
    }

    deinit { if !closed { closeDescriptor(descriptor) } }

    /// Closes the socket (an upload cut off by the client).
    func close() {
        guard !closed else { return }
        closed = true
        closeDescriptor(descriptor)
    }

    /// Sends bytes; false when the peer stopped taking them (reset, or nothing taken for the timeout).
    func send(_ bytes: [UInt8]) async -> Bool {
        (try? await blocking { self.sendNow(bytes) }) ?? false
    }

    /// Reads a response head and a body of its `Content-Length`; nil when the connection ended first.
    func response() async -> (status: Int, head: String, body: String)? {
        try? await blocking { self.responseNow() }
    }

    /// True when the server closed the connection (end of stream or reset) within the receive timeout.
    func endOfStream() async -> Bool {
        (try? await blocking { self.endOfStreamNow() }) ?? false
    }

    private func sendNow(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { sendBytes(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Reads what has come; a receive timeout is retried twice more, so a server slowed by a loaded
    /// machine gets three timeouts to answer (a send still gives up after one).
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        for _ in 0..<3 {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                return true
            }
            guard count < 0, errno == EAGAIN || errno == EWOULDBLOCK else { return false }
        }
        return false
    }

    private func responseNow() -> (status: Int, head: String, body: String)? {
        let end = Array("\r\n\r\n".utf8)
        while buffer.firstRange(of: end) == nil { guard fill() else { return nil } }
        guard let range = buffer.firstRange(of: end) else { return nil }
        let head = String(decoding: buffer[0..<range.upperBound], as: UTF8.self)
        buffer.removeFirst(range.upperBound)
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let length = head.split(separator: "\r\n").compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        while buffer.count < length { guard fill() else { break } }
        let body = String(decoding: buffer.prefix(length), as: UTF8.self)
        buffer.removeFirst(min(length, buffer.count))
        return (status, head, body)
    }

    private func endOfStreamNow() -> Bool {
        while true {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    private func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}

private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }

private func sendBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    send(descriptor, bytes, count, flags)
}
