/// Turns the core's toasts into the CLI's error line and exit code.
///
/// The core decides what went wrong and says so in `AppState.toast`; the CLI only sorts those
/// messages into exit codes by their stable leading words.
enum ToastError {
    static func map(_ toast: String) -> CLIError {
        let lower = toast.lowercased()
        let code: CLIExitCode =
            if lower.hasPrefix("invalid npub") || lower.hasPrefix("invalid nsec") || lower.hasPrefix("that is your own npub") {
                .invalidKey
            } else if lower.contains("key package") {
                .noKeyPackage
            } else if lower.contains("relay") || lower.contains("connect") || lower.contains("not sent") {
                .notSent
            } else {
                .failure
            }
        return CLIError(code, toast)
    }
}
