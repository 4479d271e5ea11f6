import Foundation
import MLS
import Nostr

/// One group's parked kind-445 events: those that could not be taken in yet (they did not decrypt,
/// or they opened and wait for a proposal or for evidence for their branch), tried again after the
/// group's next commit or proposal (marmot-wire §5.5).
///
/// Pure: the client actor parks, retries and stores; the rules are here so they can be tested alone
/// (issue 24). At most `limit` are kept and the oldest go first. An event pushed out is not lost: it
/// was never recorded as processed, so the next catch-up of the group's events tries it again (N8).
struct ParkedEvents: Sendable {
    /// How many events are kept at most.
    let limit: Int
    /// The parked events, in the order they were parked.
    private(set) var events: [Event] = []
    /// Parked events that opened and wait for another event (they make the group `syncing`);
    /// undecryptable ones are not counted, since anyone who knows the `h` tag can send those.
    private var waiting: Set<EventID> = []
    /// Parked messages held on a branch that is not selected (`noteWaiting`).
    private var held: Set<EventID> = []
    /// Events parked in this run (what the every-tenth rule counts).
    private var parkedTotal = 0

    init(limit: Int, events: [Event] = []) {
        self.limit = limit
        self.events = Array(events.suffix(limit))
    }

    var isEmpty: Bool { events.isEmpty }
    var count: Int { events.count }

    /// Parks `event` (once), dropping the oldest beyond `limit`. Returns whether the record should
    /// be stored now: a flood of junk parks one event after another, so it is stored for each of
    /// the first nine and then for every tenth event parked (at most nine parked events of a crash
    /// are lost; a stop stores the rest). Counted by events parked, not by how many are held: at
    /// the limit the count stays put, and every event then rewrote the whole record.
    mutating func park(_ event: Event) -> Bool {
        guard !events.contains(where: { $0.id == event.id }) else { return false }
        events.append(event)
        if events.count > limit { events.removeFirst(events.count - limit) }
        parkedTotal += 1
        return events.count < 10 || parkedTotal % 10 == 0
    }

    /// Takes `id` out (it opened, or failed for good).
    mutating func remove(_ id: EventID) {
        events.removeAll { $0.id == id }
    }

    /// Notes that parked event `id` opened and waits for another event (`reason`): a proposal still
    /// to come. Other reasons do not count: a message held on a branch that is not selected has
    /// its disposition (it is shown if that branch wins), as in MDK 0.9.14, where such a group is
    /// settled; counting it kept the group syncing, and our sends held back, for as long as the
    /// losing branch's traffic stayed parked.
    /// A message held on a branch is noted as such (`retryOrder`).
    mutating func noteWaiting(_ id: EventID, reason: DropReason) {
        switch reason {
        case .mls(.missingProposal): waiting.insert(id)
        case .heldOnCompetingBranch: held.insert(id)
        default: break
        }
    }

    /// Forgets waiting and held notes of events no longer parked (opened at last, or pushed out).
    mutating func pruneWaiting() {
        guard !waiting.isEmpty || !held.isEmpty else { return }
        let parked = Set(events.map(\.id))
        waiting.formIntersection(parked)
        held.formIntersection(parked)
    }

    /// How many parked events opened and wait.
    var waitingCount: Int {
        waiting.isEmpty ? 0 : events.count { waiting.contains($0.id) }
    }

    /// The events in the order a retry tries them: oldest first, ties by id. Messages held on a
    /// branch that is not selected only when `heldToo` (the group changed branches, so they may open
    /// on the one it is on now): otherwise they open where they did, their witness already counted,
    /// and every commit made the client decrypt and weigh each of them again for nothing.
    func retryOrder(heldToo: Bool) -> [Event] {
        (heldToo || held.isEmpty ? events : events.filter { !held.contains($0.id) }).sorted(by: Self.chronological)
    }

    /// Oldest first by `created_at`, then by id: the order stored events are taken in.
    static func chronological(_ a: Event, _ b: Event) -> Bool {
        a.createdAt != b.createdAt ? a.createdAt < b.createdAt : a.id.hex < b.id.hex
    }

    // MARK: Persistence

    /// The stored record: the count, then each event's JSON; nil when nothing is parked (the record
    /// is removed).
    var record: Data? {
        guard !events.isEmpty else { return nil }
        var w = TLSWriter(capacity: 1024)
        w.write(UInt32(events.count))
        for event in events { w.writeOpaque(Data(event.jsonBytes)) }
        return w.data
    }

    /// The events of a stored `record`: none when it claims more than `limit`; an entry that does
    /// not read as an event is skipped.
    init(limit: Int, record data: Data) {
        var r = TLSReader(data)
        guard let count = try? r.readUInt32(), count <= limit else {
            self.init(limit: limit)
            return
        }
        let events = (0..<count).compactMap { _ in (try? r.readOpaque()).flatMap { try? Event(jsonData: $0) } }
        self.init(limit: limit, events: events)
    }
}
