import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Loopback addresses of relays that are down, as tests need them (issue 50): a port where
/// nothing listens, and one that accepts TCP and never answers.
///
/// Each port is held by a socket kept open until the process ends (and `SO_REUSEADDR` left unset,
/// so no server can bind it beside): a port bound and released instead could be taken at once by
/// another test's relay in a parallel run, and the "dead" relay would then answer.
public enum LoopbackDeadEnds {
    public enum Failure: Error {
        case socket(Int32)
        case bind(Int32)
    }

    /// A `ws://` URL whose connections are refused at once: the port is bound, never listened on.
    public static func refusedURL() throws -> String {
        "ws://127.0.0.1:\(try boundPort(listening: false))"
    }

    /// A `ws://` URL that accepts TCP connections and never answers the WebSocket upgrade (a
    /// "black hole": the kernel completes the handshakes in the listen backlog, nothing accepts).
    /// `port` takes a given port (one a test saw a server leave: `SO_REUSEADDR` is set then, as
    /// the server had it, so its connections in TIME_WAIT do not stand in the way).
    public static func blackHoleURL(port: UInt16 = 0) throws -> String {
        "ws://127.0.0.1:\(try boundPort(listening: true, port: port))"
    }

    private static func boundPort(listening: Bool, port: UInt16 = 0) throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.socket(errno) }
        if port != 0 {
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound, !listening || listen(fd, 64) == 0 else {
            close(fd)
            throw Failure.bind(errno)
        }
        return UInt16(bigEndian: address.sin_port)
    }
}
