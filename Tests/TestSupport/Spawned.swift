import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with `posix_spawn`, for the tests' subprocesses (`ChildProcess`, `CLI.run`).
///
/// Why not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` with a 256-byte copy of
/// each directory entry and crashes when an entry ends a page (swift-corelibs-foundation PR #5472,
/// "Process.run() on Linux crashes intermittently"). A test process with many sockets open hit it in
/// CI. Here the child gets the three given descriptors on 0, 1 and 2 and no other (glibc's
/// `posix_spawn_file_actions_addclosefrom_np`); the pipes made here are also close-on-exec.
/// The child also gets a clean signal mask and dispositions (the Swift runtime blocks SIGTERM on
/// its threads, and children inherit that).
public final class Spawned: @unchecked Sendable {
    public let pid: pid_t
    private let lock = NSLock()
    private var exit: Int32?

    public struct Failure: Error, CustomStringConvertible {
        public let call: String
        public let code: Int32
        public var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    /// Starts `executable` (an absolute path) with `arguments` and exactly `environment`; its stdin,
    /// stdout and stderr are the given descriptors (the caller closes its copies of the child's ends).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String], stdin: Int32, stdout: Int32,
        stderr: Int32
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // Every other descriptor of ours closed in the child: a listening socket of an in-process
        // relay left open there would keep its port taken after the test stops that relay.
        guard let closeFrom = Self.addCloseFrom else { throw Failure(call: "posix_spawn_file_actions_addclosefrom_np", code: ENOSYS) }
        closeFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var every = sigset_t()
        sigfillset(&every)
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let result = spawnLock.withLock { posix_spawn(&child, executable, &actions, &attributes, argv, envp) }
        guard result == 0 else { throw Failure(call: "posix_spawn \(executable)", code: result) }
        pid = child
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc module
    /// does not import; looked up once.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = {
        #if os(Linux)
            guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
            return unsafeBitCast(symbol, to: AddCloseFrom.self)
        #else
            return nil
        #endif
    }()

    /// Whether the child has not exited yet (reaps it once it has).
    public var isRunning: Bool {
        reap()
        return lock.withLock { exit == nil }
    }

    /// The exit code, or the signal number that ended it (as `Process.terminationStatus`); -1 while
    /// it runs.
    public var terminationStatus: Int32 {
        reap()
        return lock.withLock { exit ?? -1 }
    }

    public func terminate() { kill(pid, SIGTERM) }

    private func reap() {
        lock.withLock {
            guard exit == nil else { return }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return }
            let signal = status & 0x7f
            exit = signal == 0 ? (status >> 8) & 0xff : signal
        }
    }

    /// A pipe whose two ends are closed in children other than the one they are handed to.
    public static func pipe() throws -> (read: FileHandle, write: FileHandle) {
        var fds: [Int32] = [0, 0]
        guard systemPipe(&fds) == 0 else { throw Failure(call: "pipe", code: errno) }
        return (FileHandle(fileDescriptor: fds[0], closeOnDealloc: true), FileHandle(fileDescriptor: fds[1], closeOnDealloc: true))
    }

    /// /dev/null opened for reading (a child's stdin when nothing is sent).
    public static func nullInput() throws -> FileHandle {
        let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(call: "open /dev/null", code: errno) }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }
}

/// `pipe(2)` with both ends close-on-exec (`dup2` onto a child's 0/1/2 clears the flag there), made
/// under `spawnLock` so no spawn of ours sees the ends before the flag is set; outside `Spawned`
/// (whose own `pipe()` would shadow it).
private func systemPipe(_ fds: inout [Int32]) -> Int32 {
    spawnLock.withLock {
        guard pipe(&fds) == 0 else { return -1 }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return 0
    }
}

/// Held while a pipe is made and while a child is spawned.
private let spawnLock = NSLock()
