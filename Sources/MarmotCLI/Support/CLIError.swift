import ArgumentParser

/// The exit codes of `marmot`, one per kind of failure, so scripts can tell them apart.
///
/// Documented in `marmot --help`; `0` is success.
enum CLIExitCode: Int32, CaseIterable, Sendable {
    /// Anything not listed below.
    case failure = 1
    /// Bad arguments or options (ArgumentParser's own usage errors are mapped here too).
    case usage = 2
    /// No account in `$MARMOT_HOME` (run `marmot account create` or `account import`).
    case noAccount = 3
    /// An npub or nsec that is not valid, or the account's own npub where a peer's is needed.
    case invalidKey = 4
    /// The peer has no key package on the relays, so no chat can be started with them.
    case noKeyPackage = 5
    /// The relays could not be reached, or a message was not accepted by any of them.
    case notSent = 6
    /// The core did not reach the awaited state in time.
    case timeout = 7
    /// `account create`/`import` into a home that already holds another account.
    case accountExists = 8
    /// `accept`/`decline` of an id that names no pending invitation (see `marmot invites`).
    case noInvitation = 9
    /// A send or group change in a chat we left or were removed from (it stays readable).
    case notMember = 10
    /// A chat with, or a send to, someone you blocked (`marmot unblock` first).
    case blocked = 11

    /// One line per code, for help texts.
    static var table: String {
        """
        Exit codes: 0 success, 1 failure, 2 usage, 3 no account, 4 invalid npub/nsec, \
        5 no key package for that npub, 6 relay unreachable or message not sent, 7 timeout, \
        8 an account already exists in this home, 9 no pending invitation with that id, \
        10 you are no longer a member of this chat, 11 you blocked that person.
        """
    }
}

/// A failure reported as one line on stderr and a distinct exit code.
///
/// The message never contains the nsec or message text beyond what the user typed as an argument.
struct CLIError: Error, CustomStringConvertible {
    let code: CLIExitCode
    let message: String

    init(_ code: CLIExitCode, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { message }

    static func noAccount() -> CLIError {
        CLIError(.noAccount, "no account in \(MarmotHome.url.path): run `marmot account create` or `marmot account import`")
    }
}
