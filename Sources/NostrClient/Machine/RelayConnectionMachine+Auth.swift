import Nostr

/// NIP-42 on one connection: answer the relay's `AUTH` challenge, track the `OK` for it, and retry a
/// publish or subscription refused with `auth-required:` once after authenticating.
///
/// The machine only asks (`signAuthentication`); the driver signs with the key the app chose and
/// hands the event back (`authenticationSigned`), so no key is ever in here.
extension RelayConnectionMachine {
    /// The NIP-42 machine-readable prefix of a refusal that authenticating may lift.
    static let authRequiredPrefix = "auth-required:"

    /// How a request refused for `auth-required:` goes on.
    enum AuthRetry {
        /// Not again: no signer, already retried once, or no challenge to answer.
        case no
        /// At once: this connection is authenticated on the relay's latest challenge.
        case now
        /// Once our AUTH is accepted (it is being signed or awaits its `OK`).
        case afterAuth
    }

    /// A challenge arrived (NIP-42 `["AUTH", <challenge>]`): keep it for this connection and answer
    /// it, unless already authenticated on this connection or no signer exists.
    mutating func challenged(_ challenge: String, _ actions: inout [Action]) {
        guard !challenge.isEmpty, challenge.utf8.count <= RelayAuthSession.maxChallengeLength else {
            actions.append(.log(.warning, "ignored an AUTH challenge of \(challenge.utf8.count) bytes"))
            return
        }
        auth.challenge = challenge
        guard authenticates else {
            actions.append(.log(.debug, "AUTH challenge not answered: no key for this relay"))
            return
        }
        guard auth.state != .authenticated else { return }
        startAuthentication(&actions)
    }

    /// Asks the driver to sign the answer to the latest challenge; false when there is none, an
    /// answer is already on its way, or this connection used its attempts.
    @discardableResult
    mutating func startAuthentication(_ actions: inout [Action]) -> Bool {
        guard authenticates, case .connected(let socket) = phase, let challenge = auth.challenge, auth.attempt == nil,
              auth.attempts < RelayAuthSession.maxAttempts else { return false }
        auth.attempts += 1
        auth.attempt = .signing(challenge: challenge)
        actions.append(.signAuthentication(socket: socket, challenge: challenge))
        return true
    }

    /// The driver signed (or would not): send `["AUTH", event]` and wait for its `OK`.
    mutating func authenticationSigned(_ challenge: String, _ event: Event?, socket: UInt64, _ actions: inout [Action]) {
        guard auth.attempt == .signing(challenge: challenge) else { return }
        guard let event, event.kind == .clientAuthentication, event.tags.firstValue(named: "challenge") == challenge else {
            auth.attempt = nil
            authFailed("client: no AUTH answer was signed", &actions)
            return
        }
        auth.attempt = .sent(event.id, challenge: challenge)
        actions.append(.send(socket: socket, text: ClientMessage.auth(event).jsonString))
        schedule(.authTimeout, after: configuration.publishTimeout, &actions)
    }

    /// The relay's `OK` for our AUTH: authenticated, and what waited for it goes again; or refused.
    mutating func authAnswered(accepted: Bool, _ message: String, _ actions: inout [Action]) {
        guard case .sent(_, let challenge)? = auth.attempt else { return }
        cancel(.authTimeout, &actions)
        auth.attempt = nil
        guard accepted else {
            // A newer challenge came meanwhile (NIP-42: it replaces the one answered): answer that.
            if auth.challenge != challenge, startAuthentication(&actions) { return }
            authFailed(message.isEmpty ? "refused without a reason" : message, &actions)
            return
        }
        auth.answered = challenge
        setAuth(.authenticated, &actions)
        guard case .connected(let socket) = phase else { return }
        for id in subscriptions.keys.sorted(by: { $0.rawValue < $1.rawValue }) where subscriptions[id]?.heldForAuth != nil {
            subscriptions[id]?.heldForAuth = nil
            resubscribe(id, socket: socket, &actions)
        }
        for id in pending.keys.sorted() {
            guard var item = pending[id], item.heldForAuth != nil else { continue }
            item.heldForAuth = nil
            item.sent = true
            item.everSent = true
            pending[id] = item
            actions.append(.send(socket: socket, text: ClientMessage.event(item.event).jsonString))
        }
    }

    mutating func authTimedOut(_ actions: inout [Action]) {
        guard case .sent? = auth.attempt else { return }
        auth.attempt = nil
        authFailed("client: no answer to AUTH", &actions)
    }

    /// Authentication failed: report it, and what waited for it fails with the relay's own reason.
    mutating func authFailed(_ reason: String, _ actions: inout [Action]) {
        actions.append(.log(.info, "AUTH refused: \(reason)"))
        setAuth(.refused(reason), &actions)
        for id in subscriptions.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let held = subscriptions[id]?.heldForAuth else { continue }
            subscriptions[id] = nil
            actions.append(.failed(.subscriptionClosed(held)))
            actions.append(.deliver(id, .closed(reason: held)))
        }
        for id in pending.keys.sorted() {
            guard let held = pending[id]?.heldForAuth else { continue }
            pending[id] = nil
            cancel(.publishTimeout(id), &actions)
            actions.append(.failed(.rejected(held)))
            actions.append(.publishFinished(id, .rejected(reason: held)))
        }
    }

    /// An `OK false` for publish `id`: true when it is an `auth-required:` refusal that goes again
    /// (now, or once authenticated), false when it ends the publish.
    mutating func retryAfterAuth(publish id: EventID, reason: String, _ actions: inout [Action]) -> Bool {
        guard reason.hasPrefix(Self.authRequiredPrefix), var item = pending[id] else { return false }
        let retry = authRetry(alreadyRetried: item.authRetried, &actions)
        guard retry != .no, case .connected(let socket) = phase else { return false }
        item.authRetried = true
        if retry == .now {
            actions.append(.send(socket: socket, text: ClientMessage.event(item.event).jsonString))
        } else {
            item.sent = false
            item.heldForAuth = reason
        }
        pending[id] = item
        return true
    }

    /// A `CLOSED` for subscription `id`: true when it is an `auth-required:` refusal that goes
    /// again (now, or once authenticated), false when it ends the subscription.
    mutating func retryAfterAuth(subscription id: SubscriptionID, reason: String, _ actions: inout [Action]) -> Bool {
        guard reason.hasPrefix(Self.authRequiredPrefix), let subscription = subscriptions[id] else { return false }
        let retry = authRetry(alreadyRetried: subscription.authRetried, &actions)
        guard retry != .no, case .connected(let socket) = phase else { return false }
        subscriptions[id]?.authRetried = true
        if retry == .now {
            resubscribe(id, socket: socket, &actions)
        } else {
            subscriptions[id]?.heldForAuth = reason
        }
        return true
    }

    /// Whether and when a request refused for `auth-required:` goes again; starts authenticating
    /// when that is what it waits for (NIP-42: the client must have a stored challenge).
    mutating func authRetry(alreadyRetried: Bool, _ actions: inout [Action]) -> AuthRetry {
        guard authenticates, !alreadyRetried else { return .no }
        if auth.attempt != nil { return .afterAuth }
        if auth.isCurrent { return .now }
        return startAuthentication(&actions) ? .afterAuth : .no
    }

    /// The connection ended: its challenge and session go with it (NIP-42 sessions are per
    /// connection); held requests go again on the next connection, with a fresh retry each.
    mutating func connectionEnded(_ actions: inout [Action]) {
        cancel(.authTimeout, &actions)
        auth = RelayAuthSession(state: auth.state)
        setAuth(.notAsked, &actions)
        for id in subscriptions.keys {
            subscriptions[id]?.authRetried = false
            subscriptions[id]?.heldForAuth = nil
        }
        for id in pending.keys {
            pending[id]?.authRetried = false
            pending[id]?.heldForAuth = nil
        }
    }

    mutating func setAuth(_ new: RelayAuthState, _ actions: inout [Action]) {
        guard new != auth.state else { return }
        auth.state = new
        actions.append(.authChanged(new))
    }
}
