import Foundation
import Logging
import Nostr

/// The NIP-01 behaviour of the relay for one client message: verify and store events, answer
/// subscriptions with stored events then EOSE, and report every refusal with a prefixed reason.
///
/// Bad input never throws out of here: it becomes `OK false`, `CLOSED` or `NOTICE`. NIP-42 (AUTH, and
/// what a connection may do without it) follows `access`.
struct RelayEngine: Sendable {
    let store: EventStore
    let hub: RelayHub
    let limits: RelayLimits
    let logger: Logger
    var faults: RelayFaults = .none
    /// The rate of EVENTs all connections together may send; nil: unlimited.
    var globalRate: TokenBucket? = nil
    /// Current Unix time in seconds (injected for tests of the `created_at` limit).
    var now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    /// NIP-42 rules; none by default.
    var access = RelayAccessPolicy(.none)
    /// The addresses an AUTH event's `relay` tag may name (known once the relay is bound).
    var relayAddresses: @Sendable () -> [RelayAddress] = { [] }

    /// Registers a new connection and, when the relay asks for AUTH, sends it its own fresh
    /// challenge at once (NIP-42: the client must hold one to answer a later `auth-required:`).
    func open(outbound: OutboundQueue) async -> ConnectionID {
        let challenge = access.challenges ? RelayAccessPolicy.newChallenge() : nil
        let id = await hub.register(outbound: outbound, challenge: challenge)
        if let challenge { outbound.send(RelayWire.auth(challenge: challenge)) }
        return id
    }

    /// The pubkeys `connection` authenticated as; empty without asking the hub when AUTH is off.
    private func authenticated(_ connection: ConnectionID) async -> Set<String> {
        access.mode == .none ? [] : await hub.session(connection).authenticated
    }

    /// Handles one text message received on `connection`, queueing the answers on `outbound`;
    /// `connectionRate` is that connection's EVENT rate (nil: unlimited).
    func handle(_ text: String, connection: ConnectionID, outbound: OutboundQueue, connectionRate: TokenBucket? = nil) async {
        let size = text.utf8.count
        if size > limits.maxMessageLength {
            logger.notice("message too large", metadata: ["bytes": "\(size)"])
            await refuse(text, "invalid: message too large (\(size) bytes, max \(limits.maxMessageLength))",
                         connection: connection, outbound: outbound)
            return
        }
        let message: ClientMessage
        do {
            message = try ClientMessage(json: text)
        } catch {
            logger.debug("malformed message", metadata: ["error": "\(error)"])
            await refuse(text, "invalid: \(Self.describe(error))", connection: connection, outbound: outbound)
            return
        }
        switch message {
        case .event, .req:
            if faults.answerDelay > .zero {
                logger.notice("fault: answer delayed", metadata: ["delay": "\(faults.answerDelay)"])
                try? await Task.sleep(for: faults.answerDelay)
            }
        default: break
        }
        switch message {
        case .event(let event):
            // Before the signature check, so a flood costs the relay as little as possible.
            if let reason = rateRefusal(connectionRate) {
                outbound.send(RelayWire.ok(event.id, accepted: false, reason))
                return
            }
            if let reason = access.writeRefusal(event, authenticated: await authenticated(connection)) {
                logger.debug("event refused: access", metadata: ["event": "\(event.id.hex)", "reason": "\(reason)"])
                outbound.send(RelayWire.ok(event.id, accepted: false, reason))
                return
            }
            if let reason = faults.rejectWith(event) {
                logger.notice("fault: event rejected", metadata: ["event": "\(event.id.hex)", "reason": "\(reason)"])
                outbound.send(RelayWire.ok(event.id, accepted: false, reason))
                return
            }
            let answer = await accept(event)
            if faults.withholdOK(event) {
                logger.notice("fault: OK withheld", metadata: ["event": "\(event.id.hex)"])
            } else {
                outbound.send(answer)
            }
        case .req(let sub, let filters):
            await subscribe(sub, filters: filters, connection: connection, outbound: outbound)
        case .close(let sub):
            await hub.unsubscribe(connection, sub)
        case .auth(let event):
            await authenticate(event, connection: connection, outbound: outbound)
        }
    }

    // MARK: AUTH

    /// NIP-42: checks the AUTH event against this connection's challenge and marks the connection
    /// authenticated as its pubkey (`OK true`), or refuses it with a reason.
    private func authenticate(_ event: Event, connection: ConnectionID, outbound: OutboundQueue) async {
        let session = access.mode == .none ? RelayHub.Session(challenge: nil, authenticated: []) : await hub.session(connection)
        switch access.authenticate(event, challenge: session.challenge, relays: relayAddresses(), now: now(),
                                   authenticated: session.authenticated) {
        case .authenticated(let pubkey):
            await hub.authenticate(connection, as: pubkey)
            logger.debug("authenticated", metadata: ["conn": "\(connection)", "pubkey": "\(pubkey)"])
            outbound.send(RelayWire.ok(event.id, accepted: true, ""))
        case .refused(let reason):
            logger.debug("AUTH refused", metadata: ["conn": "\(connection)", "reason": "\(reason)"])
            outbound.send(RelayWire.ok(event.id, accepted: false, reason))
        }
    }

    // MARK: EVENT

    /// The NIP-01 `rate-limited:` reason when the connection's or the relay's bucket is empty.
    private func rateRefusal(_ connectionRate: TokenBucket?) -> String? {
        if let bucket = connectionRate, !bucket.take() {
            logger.debug("event refused: connection rate", metadata: ["rate": "\(bucket.rate.perSecond)"])
            return "rate-limited: slow down, at most \(Self.format(bucket.rate.perSecond)) events per second per connection"
        }
        if let bucket = globalRate, !bucket.take() {
            logger.debug("event refused: relay rate", metadata: ["rate": "\(bucket.rate.perSecond)"])
            return "rate-limited: the relay is busy, at most \(Self.format(bucket.rate.perSecond)) events per second in all"
        }
        return nil
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// Verifies, stores (or only broadcasts, for ephemeral kinds) and returns the `OK` answer.
    func accept(_ event: Event) async -> String {
        if event.tags.count > limits.maxEventTags {
            return RelayWire.ok(event.id, accepted: false, "invalid: too many tags (max \(limits.maxEventTags))")
        }
        if event.createdAt > now() + limits.createdAtUpperLimit {
            return RelayWire.ok(event.id, accepted: false, "invalid: created_at is too far in the future")
        }
        do {
            try event.verify()
        } catch EventError.invalidSignature {
            logger.info("rejected event: bad signature", metadata: ["id": "\(event.id.hex)"])
            return RelayWire.ok(event.id, accepted: false, "invalid: bad signature")
        } catch {
            logger.info("rejected event: id mismatch", metadata: ["id": "\(event.id.hex)"])
            return RelayWire.ok(event.id, accepted: false, "invalid: event id does not match its content")
        }
        let json = event.jsonString
        if event.kind.isEphemeral {
            await hub.broadcast(event, json: json)
            return RelayWire.ok(event.id, accepted: true, "")
        }
        let outcome: StoreOutcome
        do {
            outcome = try await store.store(StoredEvent(event, json: json))
        } catch {
            logger.error("could not store event", metadata: ["id": "\(event.id.hex)", "error": "\(error)"])
            return RelayWire.ok(event.id, accepted: false, "error: could not store the event")
        }
        switch outcome {
        case .stored(let replaced):
            logger.debug("stored event", metadata: ["id": "\(event.id.hex)", "kind": "\(event.kind)", "replaced": "\(replaced.count)"])
            await hub.broadcast(event, json: json)
            return RelayWire.ok(event.id, accepted: true, "")
        case .duplicate:
            return RelayWire.ok(event.id, accepted: true, "duplicate: already have this event")
        case .outdated:
            return RelayWire.ok(event.id, accepted: false, "duplicate: a newer version of this replaceable event is stored")
        case .quotaExceeded(let limit):
            logger.debug("event refused: storage quota full", metadata: ["id": "\(event.id.hex)", "quota": "\(limit)"])
            return RelayWire.ok(event.id, accepted: false, "blocked: storage quota of \(limit) bytes is full")
        }
    }

    // MARK: REQ

    private func subscribe(_ sub: SubscriptionID, filters: [Filter], connection: ConnectionID, outbound: OutboundQueue) async {
        if let problem = check(filters) {
            await hub.unsubscribe(connection, sub)
            outbound.send(RelayWire.closed(sub, problem))
            return
        }
        let authenticated = await authenticated(connection)
        if let reason = access.readRefusal(filters, authenticated: authenticated) {
            await hub.unsubscribe(connection, sub)
            outbound.send(RelayWire.closed(sub, reason))
            return
        }
        do {
            try await hub.subscribe(connection, sub, filters: filters, limit: limits.maxSubscriptions)
        } catch {
            outbound.send(RelayWire.closed(sub, "blocked: too many subscriptions (max \(limits.maxSubscriptions))"))
            return
        }
        let stored: [QueriedEvent]
        do {
            stored = try await store.query(filters.map { StorageQuery($0, limits: limits) })
        } catch {
            logger.error("query failed", metadata: ["sub": "\(sub)", "error": "\(error)"])
            await hub.unsubscribe(connection, sub)
            outbound.send(RelayWire.closed(sub, "error: could not query stored events"))
            return
        }
        var sent = Set<EventID>()
        for item in stored {
            // A gift wrap not for this connection is left out (NIP-42 inbox rule), unseen.
            guard access.mayReceive(kind: Kind(UInt16(clamping: item.kind)), recipients: { RelayAccessPolicy.recipients(ofJSON: item.json) },
                                    authenticated: authenticated) else { continue }
            guard outbound.send(RelayWire.event(sub, json: item.json)) else { return }
            if let id = try? EventID(hex: item.id) { sent.insert(id) }
        }
        if faults.closeOnREQ(sub, filters) {
            logger.notice("fault: socket closed on REQ", metadata: ["sub": "\(sub)"])
            await hub.unsubscribe(connection, sub)
            outbound.finish()
            return
        }
        outbound.send(RelayWire.eose(sub))
        await hub.activate(connection, sub, alreadySent: sent)
    }

    /// The `CLOSED` reason for filters the relay will not serve, or nil when they are acceptable.
    private func check(_ filters: [Filter]) -> String? {
        if filters.count > limits.maxFilters {
            return "invalid: too many filters (\(filters.count), max \(limits.maxFilters))"
        }
        for filter in filters {
            let sizes = [filter.ids?.count ?? 0, filter.authors?.count ?? 0, filter.kinds?.count ?? 0]
                + filter.tags.values.map(\.count)
            if let largest = sizes.max(), largest > limits.maxFilterValues {
                return "invalid: filter list too long (\(largest), max \(limits.maxFilterValues))"
            }
            if filter.search != nil {
                return "unsupported: search (NIP-50) is not supported"
            }
        }
        return nil
    }

    // MARK: Refusals

    /// Answers a message that could not be used: `OK false` when it carries an event id, `CLOSED`
    /// when it is a REQ with a usable subscription id, else `NOTICE`.
    private func refuse(_ text: String, _ reason: String, connection: ConnectionID, outbound: OutboundQueue) async {
        let items = (try? JSONValue.parse(text))?.arrayValue ?? []
        let label = items.first?.stringValue
        if label == "EVENT" || label == "AUTH", items.count > 1,
           let idText = items[1].objectValue?["id"]?.stringValue, let id = try? EventID(hex: idText) {
            outbound.send(RelayWire.ok(id, accepted: false, reason))
            return
        }
        if label == "REQ", items.count > 1, let subText = items[1].stringValue {
            let sub = SubscriptionID(subText)
            if sub.isValid {
                await hub.unsubscribe(connection, sub)
                outbound.send(RelayWire.closed(sub, reason))
                return
            }
        }
        outbound.send(RelayWire.notice(reason))
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let e as RelayMessageError:
            switch e {
            case .malformed(let why): "malformed message: \(why)"
            case .unknownType(let type): "unknown message type \(type.debugDescription)"
            case .invalidSubscriptionID: "subscription id must be 1 to 64 characters"
            case .invalidEvent(let inner): "malformed event: \(inner)"
            }
        default: "\(error)"
        }
    }
}

extension StoredEvent {
    init(_ event: Event, json: String) {
        self.init(id: event.id.hex, pubkey: event.pubkey.hex, createdAt: event.createdAt, kind: Int(event.kind.rawValue),
                  tags: event.tags.map(\.fields), json: json)
    }
}

extension StorageQuery {
    /// The storage form of a NIP-01 filter, with `limit` defaulted and clamped to the relay's limits.
    init(_ filter: Filter, limits: RelayLimits) {
        self.init(
            ids: filter.ids?.map(\.hex),
            authors: filter.authors?.map(\.hex),
            kinds: filter.kinds?.map { Int($0.rawValue) },
            tags: Dictionary(uniqueKeysWithValues: filter.tags.map { (String($0.key), $0.value) }),
            since: filter.since,
            until: filter.until,
            limit: min(filter.limit ?? limits.defaultLimit, limits.maxLimit))
    }
}
