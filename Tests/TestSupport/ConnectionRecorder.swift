import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP listener that records every connection made to it and the path of its HTTP request
/// line (a WebSocket upgrade names the relay URL's path), then closes it: the place a hostile party
/// points a victim at, to see whether the victim really connects (issue 26).
public final class ConnectionRecorder: @unchecked Sendable {
    /// The bound IPv4 address and port.
    public let host: String
    public let port: Int
    private let socket: Int32
    private let lock = NSLock()
    private var requestPaths: [String] = []
    private var connections = 0
    private var stopped = false

    /// Listens on `host` (an IPv4 address of this machine) on a free port.
    public init(host: String = "127.0.0.1") throws {
        #if canImport(Glibc)
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw RecorderError.socket(errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(fd)
            throw RecorderError.address(host)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            close(fd)
            throw RecorderError.socket(errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.socket = fd
        self.host = host
        self.port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    /// The connections accepted so far.
    public var connectionCount: Int { lock.withLock { connections } }

    /// The request paths seen so far (one per connection that sent a request line).
    public var paths: [String] { lock.withLock { requestPaths } }

    /// Stops listening.
    public func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }

    private func acceptLoop() {
        while true {
            let client = accept(socket, nil, nil)
            if client < 0 {
                if lock.withLock({ stopped }) { return }
                if errno == EINTR { continue }
                return
            }
            lock.withLock { connections += 1 }
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var buffer = [UInt8](repeating: 0, count: 2048)
            let count = recv(client, &buffer, buffer.count, 0)
            if count > 0, let text = String(bytes: buffer[0..<count], encoding: .utf8),
               let line = text.split(separator: "\r\n").first
            {
                let parts = line.split(separator: " ")
                if parts.count >= 2 { lock.withLock { requestPaths.append(String(parts[1])) } }
            }
            close(client)
        }
    }

    public enum RecorderError: Error {
        case socket(Int32)
        case address(String)
    }

    /// The first IPv4 address of this machine that is not loopback, if any (for a relay that is
    /// not on the loopback network).
    public static func nonLoopbackIPv4() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            guard inet_ntop(AF_INET, &v4, &text, socklen_t(text.count)) != nil else { continue }
            let host = String(cString: text)
            if !host.hasPrefix("127.") { return host }
        }
        return nil
    }
}
