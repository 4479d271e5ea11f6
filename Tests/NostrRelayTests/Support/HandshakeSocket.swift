import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP socket to 127.0.0.1 that speaks HTTP/1.1 and RFC 6455 framing by hand, for what a well-behaved
/// client never sends: an upgrade carrying a browser `Origin`, a frame header announcing more than the
/// relay's limit, a message split into fragments that add up to too much.
///
/// Blocking I/O with a receive timeout, on a thread of its own (never on Swift's cooperative pool,
/// which the relay under test needs); each test uses its own sockets.
final class HandshakeSocket: @unchecked Sendable {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    enum Failure: Error, CustomStringConvertible {
        case system(String, Int32)
        case closedEarly
        var description: String {
            switch self {
            case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
            case .closedEarly: "the connection closed before a full answer"
            }
        }
    }

    init(port: Int, timeout: Int = 60) throws {
        descriptor = try Self.connectLoopback(port: port, timeout: timeout)
    }

    /// A blocking TCP connection to 127.0.0.1:`port` whose receives (and, with `sendTimeout`,
    /// sends) give up after `timeout` seconds; shared by the tests' raw sockets.
    static func connectLoopback(port: Int, timeout: Int, sendTimeout: Bool = false) throws -> Int32 {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure.system("socket", errno) }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        if sendTimeout { setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw Failure.system("connect", code)
        }
        return descriptor
    }

    deinit { close(descriptor) }

    func transmit(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure.system("send", errno) }
            sent += count
        }
    }

    /// Reads at least one more byte into the buffer; false at end of stream or timeout.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    private func take(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { guard fill() else { throw Failure.closedEarly } }
        let bytes = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Sends a WebSocket upgrade for `/` (with `Origin` when given) and returns the response status
    /// code and head (101 when upgraded).
    private func upgradeNow(port: Int, origin: String?) throws -> (status: Int, head: String) {
        var request = "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let origin { request += "Origin: \(origin)\r\n" }
        request += "\r\n"
        try transmit(Array(request.utf8))
        let end = Array("\r\n\r\n".utf8)
        while true {
            if let range = buffer.firstRange(of: end) {
                let head = String(decoding: buffer[0..<range.upperBound], as: UTF8.self)
                buffer.removeFirst(range.upperBound)
                let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
                return (status, head)
            }
            guard fill() else { throw Failure.closedEarly }
        }
    }

    /// Sends one masked client frame: `payload`, with a header announcing `announcedLength`
    /// (default: the payload's length), `fin` false for a fragment.
    private func sendFrameNow(opcode: UInt8, payload: [UInt8], announcedLength: Int?, fin: Bool) throws {
        let length = announcedLength ?? payload.count
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if length < 126 {
            frame.append(0x80 | UInt8(length))
        } else if length <= 0xFFFF {
            frame.append(0x80 | 126)
            frame += [UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((UInt64(length) >> (8 * UInt64($0))) & 0xFF) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try transmit(frame)
    }

    /// The next server frame (servers do not mask), or nil when the connection ended first.
    private func readFrameNow() -> (opcode: UInt8, payload: [UInt8])? {
        guard let head = try? take(2) else { return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            guard let bytes = try? take(2) else { return nil }
            length = Int(bytes[0]) << 8 | Int(bytes[1])
        } else if length == 127 {
            guard let bytes = try? take(8) else { return nil }
            length = bytes.reduce(0) { $0 << 8 | Int($1) }
        }
        guard let payload = try? take(length) else { return nil }
        return (head[0] & 0x0F, payload)
    }

    /// The next text frame, skipping control frames (the server pings an idle connection, and a
    /// loaded machine makes any connection idle for a while); nil when the connection ended first.
    func readTextFrame() async -> [UInt8]? {
        while let frame = await readFrame() {
            if frame.opcode == 0x1 { return frame.payload }
            guard frame.opcode == 0x9 || frame.opcode == 0xA else { return nil }
            if frame.opcode == 0x9 { try? await sendFrame(opcode: 0xA, payload: frame.payload) }
        }
        return nil
    }

    /// The close code of the server's close frame, skipping other frames; nil when the connection
    /// ended (or timed out) without one.
    private func closeCodeNow() -> Int? {
        while let frame = readFrameNow() {
            if frame.opcode == 0x8 {
                return frame.payload.count >= 2 ? Int(frame.payload[0]) << 8 | Int(frame.payload[1]) : 1005
            }
        }
        return nil
    }

    /// True when the server closed the TCP connection (end of stream) within the receive timeout.
    private func endOfStreamNow() -> Bool {
        while true {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    // MARK: Off the cooperative pool

    private func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Sends a WebSocket upgrade for `/` (with `Origin` when given) and returns the response status
    /// code and head (101 when upgraded).
    func upgrade(port: Int, origin: String?) async throws -> (status: Int, head: String) {
        try await blocking { try self.upgradeNow(port: port, origin: origin) }
    }

    /// Sends one masked client frame: `payload`, with a header announcing `announcedLength`
    /// (default: the payload's length), `fin` false for a fragment.
    func sendFrame(opcode: UInt8, payload: [UInt8], announcedLength: Int? = nil, fin: Bool = true) async throws {
        try await blocking { try self.sendFrameNow(opcode: opcode, payload: payload, announcedLength: announcedLength, fin: fin) }
    }

    /// The next server frame, or nil when the connection ended first.
    func readFrame() async -> (opcode: UInt8, payload: [UInt8])? {
        let frame = try? await blocking { self.readFrameNow().map { Frame(opcode: $0.opcode, payload: $0.payload) } }
        return frame?.tuple
    }

    /// The close code of the server's close frame, skipping other frames; nil when the connection
    /// ended (or timed out) without one.
    func closeCode() async -> Int? {
        try? await blocking { self.closeCodeNow() }
    }

    /// True when the server closed the TCP connection (end of stream) within the receive timeout.
    func endOfStream() async -> Bool {
        (try? await blocking { self.endOfStreamNow() }) ?? false
    }

    private struct Frame: Sendable {
        let opcode: UInt8
        let payload: [UInt8]
        var tuple: (opcode: UInt8, payload: [UInt8]) { (opcode, payload) }
    }
}
