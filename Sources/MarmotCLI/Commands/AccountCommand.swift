import ArgumentParser
import Foundation

/// `marmot account`: the identity of this `$MARMOT_HOME`.
struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Create, import, show or export this home's Nostr account.",
        subcommands: [Create.self, Import.self, Show.self, Export.self, Name.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a new account and publish its key package to the relays.",
            discussion: """
            Generates a key pair, stores the nsec in $MARMOT_HOME/nsec (mode 0600), and waits until \
            the key package is on the relays so others can start a chat with the new npub at once. \
            Fails with exit code 8 when the home already holds an account.

            Examples:
              marmot account create
              marmot account create --relay wss://relay.example.com --json
            """
        )

        @OptionGroup var relay: RelayOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await AccountFlows.create(Invocation(relay: relay, output: output))
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Log in with an existing nsec (read from stdin by default).",
            discussion: """
            Reads the nsec from standard input unless given as an argument (an argument may end up \
            in your shell history). Stores it in $MARMOT_HOME/nsec (mode 0600) and publishes a key \
            package to the relays.

            Examples:
              marmot account import < my.nsec
              pass show nostr/nsec | marmot account import --nsec-stdin --json
            """
        )

        @Flag(help: "Read the nsec from standard input (the default when no argument is given).")
        var nsecStdin = false

        @Argument(help: ArgumentHelp("The nsec (prefer stdin).", valueName: "nsec"))
        var nsec: String?

        @OptionGroup var relay: RelayOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if nsecStdin, nsec != nil { throw ValidationError("give the nsec either as an argument or on stdin, not both") }
        }

        func run() async throws {
            let secret: String
            if let nsec {
                Output.status("marmot: warning: an nsec given as an argument may be kept in your shell history; prefer stdin")
                secret = nsec
            } else {
                secret = try SecretInput.read(prompt: "nsec: ")
            }
            try await AccountFlows.importAccount(nsec: secret, Invocation(relay: relay, output: output))
        }
    }

    struct Name: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print, or set, the name others see instead of your npub (profile, kind 0).",
            discussion: """
            Names are public. Control characters are removed, long names cut, and a name that looks \
            like an npub is refused. Printing waits for the look-up on the relays, so a name set on \
            another device is the one shown.

            Examples:
              marmot account name
              marmot account name "Alice Liddell" --json
            """
        )

        @Argument(help: ArgumentHelp("The new name; omit it to print the current one.", valueName: "name"))
        var name: String?

        @OptionGroup var relay: RelayOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await AccountFlows.name(name, Invocation(relay: relay, output: output))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the account's npub, public key (hex) and relays.",
            discussion: """
            Reads only local files; nothing is sent to relays.

            Examples:
              marmot account show
              marmot account show --json | jq -r .npub
            """
        )

        @OptionGroup var relay: RelayOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await AccountFlows.show(Invocation(relay: relay, output: output))
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the account's secret key (nsec), with a warning on stderr.",
            discussion: """
            The only command that prints the nsec. Anyone holding it can read and send your messages.

            Examples:
              marmot account export > backup.nsec && chmod 600 backup.nsec
            """
        )

        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await AccountFlows.export(Invocation(output: output))
        }
    }
}
