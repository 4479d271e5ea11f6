/// The relays screen's words (issue 17): each relay's state and how long ago it last sent anything.
extension DisplayFormatter {
    /// "connected · last event 2 min ago", "connecting…", "failing: connection refused",
    /// "failing: connection refused · down since 5 min ago", "disconnected"; the age is left out
    /// before the relay's first message, and the time it went down when not known.
    public func relayStatus(_ state: RelayEntry.State, lastEventAt: Int64?, downSince: Int64? = nil) -> String {
        let activity = lastEventAt.map { " · last event \(age(since: $0))" } ?? ""
        switch state {
        case .connected: return "connected" + activity
        case .connecting: return "connecting…"
        case .failing(let reason): return "failing: \(reason)" + (downSince.map { " · down since \(age(since: $0))" } ?? activity)
        case .disconnected: return "disconnected" + activity
        }
    }

    /// NIP-42 on a relay's connection, to follow its status (issue 44): nothing until the relay
    /// asks, " · authenticated", or " · authentication refused: <the relay's reason>".
    public func relayAuth(_ auth: RelayEntry.Auth) -> String {
        switch auth {
        case .notAsked: ""
        case .authenticated: " · authenticated"
        case .refused(let reason): " · authentication refused: \(reason)"
        }
    }

    /// Where a relay the user did not choose came from (issue 26): "from Book club",
    /// "from Book club, Team", "from Book club, Team +3".
    public func relayOrigin(_ chatTitles: [String]) -> String {
        guard !chatTitles.isEmpty else { return "from a chat" }
        let shown = chatTitles.prefix(2).joined(separator: ", ")
        return chatTitles.count > 2 ? "from \(shown) +\(chatTitles.count - 2)" : "from \(shown)"
    }

    /// "just now", "5 min ago", "3 h ago", "2 d ago" — to the minute, so the text changes at most
    /// once a minute.
    public func age(since unixSeconds: Int64) -> String {
        let seconds = max(0, clock.unixSeconds() - unixSeconds)
        switch seconds {
        case ..<60: return "just now"
        case ..<3_600: return "\(seconds / 60) min ago"
        case ..<86_400: return "\(seconds / 3_600) h ago"
        default: return "\(seconds / 86_400) d ago"
        }
    }

    /// How long until `age(since:)` may read differently for the oldest-changing of `times`: the
    /// next whole minute of age (at least 1 s); nil without times.
    func nextAgeChange(_ times: [Int64]) -> Duration? {
        let now = clock.unixSeconds()
        guard let soonest = times.map({ 60 - max(0, now - $0) % 60 }).min() else { return nil }
        return .seconds(max(1, soonest))
    }
}
