import Foundation
import MLS

/// Which relays each active group is read and written on, and which relays we did not choose are in
/// our pool because groups name them (issue 26).
///
/// Why: a group's 0xF2EE `relays` (MIP-01) are written by its admins, so a hostile admin could name
/// thousands of relays, or hosts on our own network. Here each group uses at most `perGroup` of its
/// relays that the `RelayDestinationPolicy` allows (MDK's v2 cap is 16; ours among them first), all groups together add at
/// most `foreignCap` relays that are not ours, and the pool holds exactly our relays and these, so a
/// relay no active group names any more leaves the pool. A group none of whose relays is usable is
/// read and written on our relays, as before it had any.
public struct GroupRelayPlan: Sendable, Equatable {
    /// A relay we did not choose and the active groups that brought it, in plan order.
    public struct ForeignRelay: Sendable, Hashable {
        public let url: RelayURL
        public var groups: [GroupID]
    }

    /// The relays (pool keys) each active group's events go to and are read from.
    public private(set) var routes: [GroupID: [String]] = [:]
    /// Relays in the pool only because groups name them, in the order they were first named.
    public private(set) var foreign: [ForeignRelay] = []
    /// Group relays left out by the policy, with why (for the log).
    public private(set) var refused: [(RelayURL, RelayDestinationPolicy.Refusal)] = []
    /// Group relays left out by a cap (per group or global).
    public private(set) var capped: [RelayURL] = []

    public init() {}

    /// The plan for `groups` (id and named relays, in the order they get the global cap's room:
    /// oldest first, so a new group cannot push out an old one's relays).
    public init(
        own: [RelayURL], groups: [(id: GroupID, relays: [RelayURL])], policy: RelayDestinationPolicy,
        perGroup: Int, foreignCap: Int
    ) {
        var ownByKey: [String: String] = [:]
        for relay in own { ownByKey[RelayDestinationPolicy.sameRelayKey(relay)] = ownByKey[RelayDestinationPolicy.sameRelayKey(relay)] ?? relay.string }
        var foreignIndex: [String: Int] = [:]
        var refused: [(RelayURL, RelayDestinationPolicy.Refusal)] = []
        for group in groups {
            // Relays of ours the group names come first: they cost no new connection and show our
            // address to no one new, and the group's order (MDK keeps relays as a sorted set) must
            // not decide whether they are used.
            let allowed = policy.filter(group.relays) { refused.append(($0, $1)) }
            let usable = allowed.filter { ownByKey[RelayDestinationPolicy.sameRelayKey($0)] != nil }
                + allowed.filter { ownByKey[RelayDestinationPolicy.sameRelayKey($0)] == nil }
            capped += usable.dropFirst(perGroup)
            var route: [String] = []
            for relay in usable.prefix(perGroup) {
                let key = RelayDestinationPolicy.sameRelayKey(relay)
                if let mine = ownByKey[key] {
                    route.append(mine)
                } else if let index = foreignIndex[key] {
                    foreign[index].groups.append(group.id)
                    route.append(foreign[index].url.string)
                } else if foreign.count < foreignCap {
                    foreignIndex[key] = foreign.count
                    foreign.append(ForeignRelay(url: relay, groups: [group.id]))
                    route.append(relay.string)
                } else {
                    capped.append(relay)
                }
            }
            routes[group.id] = route.isEmpty ? own.map(\.string) : route
        }
        self.refused = refused
    }

    /// The pool keys of the relays we did not choose.
    public var foreignURLs: Set<String> { Set(foreign.map(\.url.string)) }

    public static func == (lhs: GroupRelayPlan, rhs: GroupRelayPlan) -> Bool {
        lhs.routes == rhs.routes && lhs.foreign == rhs.foreign
    }
}
