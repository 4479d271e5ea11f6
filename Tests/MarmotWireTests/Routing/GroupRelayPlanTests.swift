import Foundation
import MLS
import Testing
@testable import MarmotWire

/// The relays each group uses and the relays groups bring into the pool (issue 26).
@Suite struct GroupRelayPlanTests {
    static let own = [try! RelayURL("wss://own.example")]
    static let policy = RelayDestinationPolicy(own: own)

    static func group() -> GroupID { GroupID(CipherSuiteProvider.mls128X25519.randomBytes(16)) }
    static func relays(_ prefix: String, _ count: Int) -> [RelayURL] {
        (0..<count).map { try! RelayURL("wss://\(prefix)\($0).example") }
    }

    @Test func eachGroupUsesAtMostSixteenAllowedRelays() throws {
        let g = Self.group()
        let named = [try RelayURL("ws://192.168.1.10:4444"), try RelayURL("wss://own.example/")] + Self.relays("r", 3000)
        let plan = GroupRelayPlan(own: Self.own, groups: [(g, named)], policy: Self.policy, perGroup: 16, foreignCap: 32)
        #expect(plan.routes[g]?.count == 16)
        #expect(plan.routes[g]?.first == "wss://own.example", "ours, as we spell it")
        #expect(plan.foreign.count == 15)
        #expect(plan.refused.map(\.0.string) == ["ws://192.168.1.10:4444"])
        #expect(plan.capped.count == 3000 - 15)
    }

    /// Ours is used whatever its place in the group's list (MDK keeps the list sorted, so a port
    /// number would otherwise decide it), and the cap counts it.
    @Test func oursNamedLastIsStillAmongTheSixteen() throws {
        let g = Self.group()
        let named = Self.relays("r", 40) + [try RelayURL("wss://own.example")]
        let plan = GroupRelayPlan(own: Self.own, groups: [(g, named)], policy: Self.policy, perGroup: 16, foreignCap: 32)
        #expect(plan.routes[g]?.first == "wss://own.example")
        #expect(plan.routes[g]?.count == 16)
        #expect(plan.foreign.count == 15)
    }

    @Test func relaysNotOursAreCappedOverAllGroupsOldestFirst() throws {
        let (a, b, c) = (Self.group(), Self.group(), Self.group())
        let plan = GroupRelayPlan(
            own: Self.own, groups: [(a, Self.relays("a", 16)), (b, Self.relays("b", 16) + Self.relays("a", 2)), (c, Self.relays("c", 16))],
            policy: Self.policy, perGroup: 16, foreignCap: 32)
        #expect(plan.foreign.count == 32)
        #expect(plan.routes[a]?.count == 16)
        #expect(plan.routes[b]?.count == 16, "16 of its own")
        // c's relays found no room: it is read and written on ours rather than nowhere.
        #expect(plan.routes[c] == ["wss://own.example"])
        #expect(plan.foreign.first?.groups == [a])
    }

    @Test func aRelayNamedByTwoGroupsListsBoth() throws {
        let (a, b) = (Self.group(), Self.group())
        let shared = try RelayURL("wss://shared.example")
        let plan = GroupRelayPlan(
            own: Self.own, groups: [(a, [shared]), (b, [try RelayURL("wss://shared.example/")])],
            policy: Self.policy, perGroup: 16, foreignCap: 32)
        #expect(plan.foreign.count == 1)
        #expect(plan.foreign.first?.groups == [a, b])
        #expect(plan.routes[b] == ["wss://shared.example"])
    }
}
