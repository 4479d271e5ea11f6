import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a secret line from stdin; on a terminal it prompts on stderr and turns echo off.
enum SecretInput {
    static func read(prompt: String) throws(CLIError) -> String {
        let terminal = isatty(STDIN_FILENO) == 1
        var saved = termios()
        if terminal {
            Output.status(prompt)
            tcgetattr(STDIN_FILENO, &saved)
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        }
        let line = readLine(strippingNewline: true)
        if terminal {
            tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            Output.status("")
        }
        guard let line, !line.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CLIError(.usage, "no nsec on standard input")
        }
        return line
    }
}
