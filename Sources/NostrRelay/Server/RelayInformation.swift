/// The NIP-11 relay information document, served on `GET /` with `Accept: application/nostr+json`.
public struct RelayInformation: Codable, Sendable, Equatable {
    /// NIP-11 `limitation`.
    public struct Limitation: Codable, Sendable, Equatable {
        public var maxMessageLength: Int
        public var maxSubscriptions: Int
        public var maxFilters: Int
        public var maxLimit: Int
        public var maxSubidLength: Int
        public var maxEventTags: Int
        public var defaultLimit: Int
        public var createdAtUpperLimit: Int64
        public var authRequired: Bool
        public var paymentRequired: Bool
        public var restrictedWrites: Bool
        /// Not in NIP-11: this relay's quota on stored event JSON in bytes (absent: none).
        public var maxStoredBytes: Int64?
        /// Not in NIP-11: EVENTs per second one connection may send (absent: no limit).
        public var maxEventsPerSecond: Double?
        /// Not in NIP-11: EVENTs per second all connections together may send (absent: no limit).
        public var maxRelayEventsPerSecond: Double?
        /// Not in NIP-11: open WebSocket connections at most.
        public var maxConnections: Int?

        enum CodingKeys: String, CodingKey {
            case maxMessageLength = "max_message_length"
            case maxSubscriptions = "max_subscriptions"
            case maxFilters = "max_filters"
            case maxLimit = "max_limit"
            case maxSubidLength = "max_subid_length"
            case maxEventTags = "max_event_tags"
            case defaultLimit = "default_limit"
            case createdAtUpperLimit = "created_at_upper_limit"
            case authRequired = "auth_required"
            case paymentRequired = "payment_required"
            case restrictedWrites = "restricted_writes"
            case maxStoredBytes = "max_stored_bytes"
            case maxEventsPerSecond = "max_events_per_second"
            case maxRelayEventsPerSecond = "max_relay_events_per_second"
            case maxConnections = "max_connections"
        }
    }

    public var name: String
    public var description: String
    public var supportedNips: [Int]
    public var software: String
    public var version: String
    public var limitation: Limitation

    enum CodingKeys: String, CodingKey {
        case name, description, software, version, limitation
        case supportedNips = "supported_nips"
    }

    /// Defaults for the reported software URL and version (set them in `RelayConfiguration`).
    public static let defaultSoftware = "https://github.com/marmot-protocol"
    public static let defaultVersion = "0.1.0"

    init(configuration: RelayConfiguration) {
        let limits = configuration.limits
        name = configuration.name
        description = configuration.description
        let auth = configuration.auth
        supportedNips = auth.mode == .none ? [1, 11] : [1, 11, 42]
        software = configuration.software
        version = configuration.version
        limitation = Limitation(
            maxMessageLength: limits.maxMessageLength,
            maxSubscriptions: limits.maxSubscriptions,
            maxFilters: limits.maxFilters,
            maxLimit: limits.maxLimit,
            maxSubidLength: limits.maxSubscriptionIDLength,
            maxEventTags: limits.maxEventTags,
            defaultLimit: limits.defaultLimit,
            createdAtUpperLimit: limits.createdAtUpperLimit,
            authRequired: auth.mode == .all,
            paymentRequired: false,
            restrictedWrites: auth.mode == .all && !auth.allowedWriters.isEmpty,
            maxStoredBytes: configuration.maxStoredBytes,
            maxEventsPerSecond: configuration.connectionEventRate?.perSecond,
            maxRelayEventsPerSecond: configuration.globalEventRate?.perSecond,
            maxConnections: configuration.maxConnections)
    }
}
