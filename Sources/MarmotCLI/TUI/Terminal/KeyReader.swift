import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the driver's loop reacts to.
enum TUIEvent: Sendable, Equatable {
    case key(Key)
    /// The terminal changed size (SIGWINCH).
    case resized
    /// Time passed: look for new state.
    case tick
    /// SIGINT, SIGTERM or SIGHUP, or standard input closed: leave.
    case quit
}

/// Reads standard input on a thread of its own and turns the bytes into key events.
///
/// It polls with a short timeout so it can stop, and so that an Esc with nothing after it within
/// `escapeDelay` is reported as the Escape key rather than held as the start of a sequence.
final class KeyReader: @unchecked Sendable {
    private let sink: AsyncStream<TUIEvent>.Continuation
    // Guarded by `lock`.
    private var stopping = false
    private let lock = NSLock()
    private let finished = DispatchSemaphore(value: 0)

    /// How long a lone Esc waits for the rest of a sequence, in milliseconds.
    static let escapeDelay: Int32 = 25

    init(sink: AsyncStream<TUIEvent>.Continuation) { self.sink = sink }

    func start() {
        let thread = Thread { [self] in
            loop()
            finished.signal()
        }
        thread.name = "marmot.tui.keys"
        thread.start()
    }

    /// Asks the thread to stop and waits briefly for it, so it reads nothing after the terminal is
    /// given back.
    func stop() {
        lock.withLock { stopping = true }
        _ = finished.wait(timeout: .now() + .milliseconds(300))
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    private func loop() {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !isStopping {
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, pending.isEmpty ? 50 : Self.escapeDelay)
            if ready < 0 {
                if errno == EINTR { continue }
                sink.yield(.quit)
                return
            }
            if ready == 0 {
                if !pending.isEmpty { pending = emit(pending, atEnd: true) }
                continue
            }
            if descriptor.revents & Int16(POLLIN) == 0 {
                // Hang-up or error without data: the terminal is gone.
                sink.yield(.quit)
                return
            }
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                sink.yield(.quit)
                return
            }
            if count == 0 {
                sink.yield(.quit)
                return
            }
            pending += buffer[0..<count]
            pending = emit(pending, atEnd: false)
        }
    }

    private func emit(_ bytes: [UInt8], atEnd: Bool) -> [UInt8] {
        let (keys, rest) = KeyDecoder.decode(bytes, atEnd: atEnd)
        for key in keys { sink.yield(.key(key)) }
        return rest
    }
}

#if canImport(Darwin)
    typealias SignalHandler = sig_t
#else
    typealias SignalHandler = sighandler_t
#endif

/// Turns SIGINT, SIGTERM and SIGHUP into `.quit` and SIGWINCH into `.resized` while the UI runs, and
/// puts the previous dispositions back when cancelled.
final class SignalWatcher: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []
    private var previous: [(Int32, SignalHandler?)] = []

    init(sink: AsyncStream<TUIEvent>.Continuation) {
        let events: [(Int32, TUIEvent)] = [(SIGINT, .quit), (SIGTERM, .quit), (SIGHUP, .quit), (SIGWINCH, .resized)]
        for (number, event) in events {
            previous.append((number, signal(number, SIG_IGN)))
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { sink.yield(event) }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        sources = []
        for (number, handler) in previous { signal(number, handler) }
        previous = []
    }
}
