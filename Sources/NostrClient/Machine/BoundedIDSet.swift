import Nostr

/// A set of event ids that forgets the oldest entries beyond `capacity`, for de-duplication
/// with bounded memory on long-lived subscriptions.
struct BoundedIDSet: Sendable, Equatable {
    private var members: Set<EventID> = []
    private var order: [EventID] = []
    private var head = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    var count: Int { members.count }

    func contains(_ id: EventID) -> Bool { members.contains(id) }

    /// Inserts `id`; false when it was already present.
    @discardableResult
    mutating func insert(_ id: EventID) -> Bool {
        guard members.insert(id).inserted else { return false }
        if order.count < capacity {
            order.append(id)
        } else {
            members.remove(order[head])
            order[head] = id
            head = (head + 1) % capacity
        }
        return true
    }
}

/// A small deterministic random generator (SplitMix64) so the machine stays pure and testable.
struct SplitMix64: RandomNumberGenerator, Sendable, Equatable {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
