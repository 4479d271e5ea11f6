import Nostr

/// How a subscription's filters change when it is sent again after a reconnect.
///
/// Events already delivered need not come again, so `since` moves up to the newest `created_at`
/// seen minus a safety margin (relays and publishers disagree on clocks). Filters that may match
/// gift wraps (kind 1059 listed, or no `kinds` at all) move back much further, because NIP-59 wraps
/// carry a `created_at` up to two days in the past: `since: now` would miss them. A `since` is never
/// moved earlier than the caller's own. Without any event seen yet, the filters go out unchanged.
enum ResubscribePolicy {
    static func filters(_ filters: [Filter], newestSeen: Int64?, configuration: RelayClientConfiguration) -> [Filter] {
        guard let newestSeen else { return filters }
        return filters.map { original in
            var filter = original
            let lookback = mayMatchGiftWraps(filter) ? configuration.giftWrapLookback : configuration.resubscribeMargin
            let moved = max(0, newestSeen - lookback)
            filter.since = max(original.since ?? moved, moved)
            // `limit: 0` asked for live events only; those missed while away are wanted now.
            if filter.limit == 0 { filter.limit = nil }
            return filter
        }
    }

    static func mayMatchGiftWraps(_ filter: Filter) -> Bool {
        guard let kinds = filter.kinds else { return true }
        return kinds.contains(.giftWrap)
    }
}
