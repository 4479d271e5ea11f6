import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the terminal UI could not start.
enum TerminalUIError: Error, Equatable, CustomStringConvertible {
    /// Standard input or output is not a terminal (a pipe or a file).
    case notATerminal
    /// `tcgetattr`/`tcsetattr` failed with `errno`.
    case attributes(operation: String, errno: Int32)

    var description: String {
        switch self {
        case .notATerminal: "the interactive UI needs a terminal on standard input and output"
        case .attributes(let operation, let code): "\(operation) on the terminal failed (errno \(code))"
        }
    }
}

/// The controlling terminal in raw mode on the alternate screen with the cursor hidden, until
/// `restore()`.
///
/// Raw mode (termios, POSIX.1 §11) turns off echo, line buffering and the signal keys, so every key
/// arrives as bytes and Ctrl-C is a key the UI handles. The saved attributes are restored once,
/// whichever comes first: `restore()` (the driver calls it on return, on error and on a signal) or
/// process exit (an `atexit` hook, for paths that call `exit` while the UI is up).
final class RawTerminal: @unchecked Sendable {
    // `restored` is guarded by `lock`; `saved` is written once in `enter`.
    private let lock = NSLock()
    private var restored = false
    private let saved: termios

    private init(saved: termios) { self.saved = saved }

    /// Switches the terminal to raw mode and the alternate screen.
    static func enter() throws(TerminalUIError) -> RawTerminal {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw .notATerminal }
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { throw .attributes(operation: "tcgetattr", errno: errno) }
        var raw = original
        cfmakeraw(&raw)
        guard tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0 else {
            throw .attributes(operation: "tcsetattr", errno: errno)
        }
        let terminal = RawTerminal(saved: original)
        ExitHook.install(terminal)
        // Alternate screen, hidden cursor, cleared.
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[0m\u{1B}[2J")
        return terminal
    }

    /// Leaves the alternate screen, shows the cursor and puts the saved attributes back; only the
    /// first call does anything.
    func restore() {
        let first = lock.withLock {
            defer { restored = true }
            return !restored
        }
        guard first else { return }
        Self.write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        var attributes = saved
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &attributes)
    }

    /// The terminal's size, from `TIOCGWINSZ`, else `COLUMNS`/`LINES`, else 80×24.
    static func size() -> TerminalSize {
        var window = winsize()
        let result = withUnsafeMutablePointer(to: &window) { ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), $0) }
        if result == 0, window.ws_col > 0, window.ws_row > 0 {
            return TerminalSize(columns: Int(window.ws_col), rows: Int(window.ws_row))
        }
        let environment = ProcessInfo.processInfo.environment
        if let columns = environment["COLUMNS"].flatMap(Int.init), let rows = environment["LINES"].flatMap(Int.init),
            columns > 0, rows > 0
        {
            return TerminalSize(columns: columns, rows: rows)
        }
        return .standard
    }

    /// Writes all of `text` to standard output, unbuffered.
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeMutableBytes { posixWrite(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += count
        }
    }
}

/// `write(2)`, named apart from `RawTerminal.write`.
private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

/// Restores the terminal when the process exits while the UI is up.
private enum ExitHook {
    nonisolated(unsafe) private static var terminal: RawTerminal?
    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed = false

    static func install(_ terminal: RawTerminal) {
        lock.withLock {
            self.terminal = terminal
            if !installed {
                installed = true
                atexit { ExitHook.restore() }
            }
        }
    }

    private static func restore() {
        let terminal = lock.withLock { self.terminal }
        terminal?.restore()
    }
}
