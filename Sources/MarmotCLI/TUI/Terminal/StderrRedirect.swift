import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sends standard error elsewhere while the UI is up, when it is the terminal: a log line written
/// there would land in the middle of the drawn screen.
///
/// Lines go to `logFile` (appended, created 0600) or, without one, are dropped; `restore()` puts the
/// terminal back as standard error.
final class StderrRedirect: @unchecked Sendable {
    // Guarded by `lock`.
    private var saved: Int32?
    private let lock = NSLock()

    /// Redirects when standard error is a terminal; otherwise (a pipe or file) leaves it alone.
    init(logFile: URL?) {
        guard isatty(STDERR_FILENO) == 1 else { return }
        let target = logFile.map { open($0.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600) } ?? -1
        let descriptor = target >= 0 ? target : open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let copy = dup(STDERR_FILENO)
        guard copy >= 0, dup2(descriptor, STDERR_FILENO) >= 0 else {
            if copy >= 0 { close(copy) }
            return
        }
        saved = copy
    }

    func restore() {
        let descriptor: Int32? = lock.withLock {
            defer { saved = nil }
            return saved
        }
        guard let descriptor else { return }
        dup2(descriptor, STDERR_FILENO)
        close(descriptor)
    }
}
