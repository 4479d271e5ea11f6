import ArgumentParser
import Foundation
import Logging
import Nostr
import NostrRelay

/// Runs the embedded Nostr relay in the foreground (NIP-01 over WebSocket, NIP-11), so two Marmot
/// homes, or any Nostr client, can talk on this machine without a network.
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Run the embedded Nostr relay in the foreground until interrupted.",
        discussion: """
            Prints the relay's ws:// URL as the first line on stdout once it accepts connections, and \
            "blossom http://…" (its Blossom server's URL) as the second unless --no-blossom.
            Events are stored in a SQLite file (default: $MARMOT_HOME/relay.sqlite, mode 0600) and survive restarts.

            Blossom (BUD-01/02/11/12) on the same port: GET/HEAD /<sha256>, PUT /upload, GET /list/<pubkey>, \
            DELETE /<sha256>, with kind-24242 authorization for uploads and deletes. Blobs are files in a \
            blobs/ folder beside the database (a temporary folder with --memory); one blob may be at most \
            --max-blob bytes (413), all together --blob-quota bytes (507). Uploads, deletes and lists from \
            a web page are refused unless --allow-origin names it; blob reads are open (CORS).

            Limits (advertised in the NIP-11 document): web pages cannot connect (a WebSocket upgrade \
            carrying a page's Origin is refused unless --allow-origin names it; native clients send \
            none, or a ws: one); stored events are capped at --quota-mb (then EVENT gets "blocked: storage quota ..."); \
            each connection may publish --event-rate events per second and all together \
            --relay-event-rate (then "rate-limited: ..."); at most --max-connections sockets are open; a \
            message over 1 MiB closes the connection (1009) before it is read.

            Authentication (NIP-42), --auth:
              none   no challenge; anyone reads and writes (the default).
              inbox  each connection gets its own AUTH challenge; anyone may write (anyone can \
            send you an invitation), but gift wraps (kind 1059) are served, stored or live, only to a \
            connection authenticated as one of their p recipients, so who receives Welcomes stays \
            private: self-host your inbox relay with this.
              all    as inbox, and every EVENT and REQ needs AUTH first ("auth-required: …"); with \
            --allow-pubkey (repeatable) only those pubkeys may write (others get "restricted: …").
            The AUTH event's relay tag must name this relay: its host and port (127.0.0.1, localhost \
            and ::1 are one host; any host when bound to 0.0.0.0), or --public-url behind a TLS proxy.

            Examples:
              marmot relay --port 7447
              marmot relay --auth inbox --host 0.0.0.0
              marmot relay --auth all --allow-pubkey npub1… --public-url wss://relay.example.com
              marmot relay --allow-origin http://localhost:8000 --quota-mb 100
              marmot relay --max-blob 20000000 --blob-quota 5000000000
            """
    )

    @Option(help: "Interface to bind (loopback by default).")
    var host = "127.0.0.1"

    @Option(help: "TCP port; 0 picks a free one.")
    var port = 7447

    @Option(help: "SQLite file for stored events (default: $MARMOT_HOME/relay.sqlite).")
    var database: String?

    @Flag(help: "Keep events in memory only (nothing survives a restart).")
    var memory = false

    @Option(name: .customLong("allow-origin"),
            help: ArgumentHelp("Let web pages from this origin (e.g. http://localhost:8000) connect; repeatable.",
                               valueName: "URL"))
    var allowedOrigins: [String] = []

    @Option(help: "Quota on stored event JSON in MiB; 0 for none.")
    var quotaMb = 1024

    @Option(help: "Open WebSocket connections at most.")
    var maxConnections = 256

    @Option(help: "EVENTs per second one connection may publish (bursts of 10 times as many); 0 for no limit.")
    var eventRate = 50

    @Option(help: "EVENTs per second all connections together may publish (bursts of 10 times as many); 0 for no limit.")
    var relayEventRate = 500

    @Option(help: ArgumentHelp("Largest blob the Blossom server accepts, in bytes.", valueName: "BYTES"))
    var maxBlob: Int64 = 100 << 20

    @Option(help: ArgumentHelp("Bytes of blobs the Blossom server stores at most; 0 for no quota.", valueName: "BYTES"))
    var blobQuota: Int64 = 1 << 30

    @Flag(help: "Serve no Blossom endpoints (only the Nostr relay).")
    var noBlossom = false

    @Option(help: ArgumentHelp("NIP-42 authentication: none, inbox (gift wraps only to their recipient) or all (AUTH for every read and write).",
                               valueName: "MODE"))
    var auth: RelayAuthMode = .none

    @Option(name: .customLong("allow-pubkey"),
            help: ArgumentHelp("With --auth all: only this pubkey (hex or npub) may write; repeatable.", valueName: "KEY"))
    var allowedPubkeys: [String] = []

    @Option(help: ArgumentHelp("The relay's public URL (e.g. wss://relay.example.com behind a TLS proxy), accepted in AUTH events' relay tag.",
                               valueName: "URL"))
    var publicURL: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .notice

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard quotaMb >= 0 else { throw ValidationError("--quota-mb must be 0 (no quota) or more") }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
        guard eventRate >= 0, relayEventRate >= 0 else { throw ValidationError("event rates must be 0 (no limit) or more") }
        guard maxBlob >= 1 else { throw ValidationError("--max-blob must be at least 1 byte") }
        guard blobQuota >= 0 else { throw ValidationError("--blob-quota must be 0 (no quota) or more") }
        if !allowedPubkeys.isEmpty, auth != .all {
            throw ValidationError("--allow-pubkey needs --auth all")
        }
        for key in allowedPubkeys where Self.pubkey(key) == nil {
            throw ValidationError("--allow-pubkey \(key): expected a 64-character hex pubkey or an npub")
        }
        if let publicURL {
            guard let url = URLComponents(string: publicURL), ["ws", "wss"].contains(url.scheme?.lowercased() ?? ""),
                  url.host?.isEmpty == false else {
                throw ValidationError("--public-url \(publicURL): expected ws://host[:port] or wss://host[:port]")
            }
        }
        for origin in allowedOrigins where Self.origin(origin) == nil {
            throw ValidationError("--allow-origin \(origin): expected scheme://host[:port], e.g. http://localhost:8000")
        }
    }

    /// `text` as a browser sends it in `Origin` (`scheme://host[:port]`, no path), or nil when it is
    /// not one; `null` (sandboxed and `data:` pages) is taken as is.
    static func origin(_ text: String) -> String? {
        if text == "null" { return text }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              ["http", "https"].contains(scheme), let host = components.host, !host.isEmpty,
              components.path.isEmpty || components.path == "/", components.query == nil, components.user == nil
        else { return nil }
        return "\(scheme)://\(host.lowercased())" + (components.port.map { ":\($0)" } ?? "")
    }

    /// A pubkey given as hex or `npub1…`, or nil when it is neither.
    static func pubkey(_ text: String) -> PublicKey? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.lowercased().hasPrefix("npub1") ? try? PublicKey(npub: trimmed.lowercased()) : try? PublicKey(hex: trimmed.lowercased())
    }

    /// The relay's configuration from the flags.
    func relayConfiguration(storage: RelayStorage) -> RelayConfiguration {
        var configuration = RelayConfiguration(host: host, port: port, storage: storage)
        configuration.allowedOrigins = Set(allowedOrigins.compactMap(Self.origin))
        configuration.maxStoredBytes = quotaMb == 0 ? nil : Int64(quotaMb) << 20
        configuration.maxConnections = maxConnections
        configuration.connectionEventRate = eventRate == 0
            ? nil : EventRate(perSecond: Double(eventRate), burst: Double(eventRate) * 10)
        configuration.globalEventRate = relayEventRate == 0
            ? nil : EventRate(perSecond: Double(relayEventRate), burst: Double(relayEventRate) * 10)
        configuration.auth = RelayAuthConfiguration(
            mode: auth, allowedWriters: Set(allowedPubkeys.compactMap(Self.pubkey)), relayURL: publicURL)
        if noBlossom {
            configuration.blossom = nil
        } else {
            var blossom = BlossomConfiguration()
            blossom.maxBlobBytes = maxBlob
            blossom.quotaBytes = blobQuota == 0 ? nil : blobQuota
            configuration.blossom = blossom
        }
        return configuration
    }

    func run() async throws {
        let storage: RelayStorage
        if memory {
            storage = .inMemory
        } else {
            let path = try database ?? MarmotHome.prepare().appendingPathComponent("relay.sqlite").path
            storage = .file(path: path)
        }
        var logger = Logger(label: "marmot.relay")
        logger.logLevel = logLevel
        let server = RelayServer(configuration: relayConfiguration(storage: storage), logger: logger)
        do {
            try await server.start()
        } catch {
            throw ValidationError("cannot start the relay on \(host):\(port): \(error)")
        }
        // Unbuffered, so a parent process reading a pipe sees the URL at once.
        if let url = await server.url { FileHandle.standardOutput.write(Data((url + "\n").utf8)) }
        if let blossom = await server.blossomURL { FileHandle.standardOutput.write(Data(("blossom " + blossom + "\n").utf8)) }
        await Signals.waitForTermination()
        await server.stop()
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension RelayAuthMode: ExpressibleByArgument {}
