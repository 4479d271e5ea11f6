import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `marmot`: the terminal client of Marmot, a thin renderer of the app core.
///
/// A platform target like the SwiftUI app (seed 001 §4.4, core-based): commands dispatch
/// `AppAction`s to one `MarmotApp` and render its `AppState`; validation, chats and delivery are the
/// core's. Failures are one line on stderr and a distinct exit code (`CLIExitCode`).
@main
struct MarmotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "marmot",
        abstract: "End-to-end encrypted chats over Nostr relays (MLS, Marmot protocol).",
        discussion: """
            Files live in $MARMOT_HOME (default ~/.local/share/marmot): the account's nsec in `nsec` \
            (mode 0600), chats in `data/`, the embedded relay's events in `relay.sqlite`. The folder is \
            kept 0700 and its files 0600; a home owned by another user is refused (exit code 2).

            Relays: --relay URL (repeatable), else MARMOT_RELAYS (comma or space separated), else \
            $MARMOT_HOME/relays (one URL per line), else an embedded relay on 127.0.0.1 started by the \
            command itself (announced on stderr).

            Every command accepts --json (one JSON object per line on stdout) and -v (logs on stderr).

            \(CLIExitCode.table)
            """,
        subcommands: [
            InteractiveCommand.self, DemoCommand.self, AccountCommand.self, ChatsCommand.self, ChatCommand.self, SendCommand.self, MessagesCommand.self,
            ReactCommand.self, UnreactCommand.self, ReplyCommand.self, EditCommand.self, DeleteCommand.self,
            ListenCommand.self, InvitesCommand.self, AcceptCommand.self, DeclineCommand.self, GroupCommand.self, RelaysCommand.self, RelayCommand.self,
            WebCommand.self, MediaCommand.self, BlossomCommand.self, NotesCommand.self, DevicesCommand.self,
            MuteCommand.self, UnmuteCommand.self, ArchiveCommand.self, UnarchiveCommand.self, BlockCommand.self,
            UnblockCommand.self, BlockedCommand.self, SearchCommand.self,
        ],
        defaultSubcommand: InteractiveCommand.self
    )

    /// Parses and runs a command, mapping failures to one stderr line and `CLIExitCode`s (usage
    /// errors exit with 2).
    static func main() async {
        // Owner-only for whatever this process creates (SQLite journals, temporary files); the files
        // of $MARMOT_HOME also get their modes set explicitly (MarmotHome, RelayFiles, StoreFiles).
        umask(0o077)
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            finish(with: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        } catch let error as CLIError {
            Output.error(error.message)
            Foundation.exit(error.code.rawValue)
        } catch let error as ExitCode {
            Foundation.exit(error.rawValue)
        } catch {
            finish(with: error)
        }
        Foundation.exit(0)
    }

    /// Ends the process for an ArgumentParser error: help (also from `marmot help`) on stdout with
    /// 0, anything else on stderr, usage errors with 2.
    private static func finish(with error: any Error) -> Never {
        let code = exitCode(for: error)
        let text = fullMessage(for: error)
        if code.isSuccess {
            if !text.isEmpty { Output.line(text) }
            Foundation.exit(0)
        }
        if !text.isEmpty { Output.status(text) }
        Foundation.exit(code == .validationFailure ? CLIExitCode.usage.rawValue : code.rawValue)
    }
}
