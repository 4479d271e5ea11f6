import Foundation
import MLS
import Nostr

/// One group's parked kind-445 events: those that could not be taken in yet (they did not decrypt,
/// or they opened and wait for a proposal or for evidence for their branch), tried again after the
/// group's next commit or proposal (marmot-wire §5.5).
///
/// Pure: the client actor parks, retries and stores; the rules are here so they can be tested alone
/// (issue 24). At most `limit` are kept, and those that never opened hold at most `byteLimit`
/// bytes of content (any relay serving the group can send such events, up to
/// `GroupEvent.maxContentLength` each: surface review 2026-12-01, N2). Beyond either, what never
/// opened goes first (anyone who knows the `h` tag can send such bytes), oldest first; an event
/// that opened (its sender knows the group's keys) goes only when every parked event opened, so
/// outsiders' junk cannot push it out (N8). An event pushed out is not lost: it was never recorded
/// as processed, and the client fetches the group's events again from the oldest one pushed out
/// (`takePushedOut`). Each event is a row of its own (`StoredParkedEvent`); what changed since
/// the last write is `takeChanges()`.
struct ParkedEvents: Sendable {
    /// How many events are kept at most.
    let limit: Int
    /// How many bytes of content the events that never opened may hold.
    let byteLimit: Int
    /// The default of `byteLimit`: 2 MiB, sixteen events of the longest content accepted, and
    /// hundreds of ordinary early messages.
    static let defaultByteLimit = 2 << 20
    /// Each event's row position.
    private var positions: [EventID: Int64] = [:]
    private var nextPosition: Int64 = 0
    /// The rows to write.
    private var changes = ParkedEventChanges()
    /// The parked events, in the order they were parked.
    private(set) var events: [Event] = []
    /// Parked events that opened and wait for another event (they make the group `syncing`);
    /// undecryptable ones are not counted, since anyone who knows the `h` tag can send those.
    private var waiting: Set<EventID> = []
    /// Parked messages held on a branch that is not selected (`noteWaiting`).
    private var held: Set<EventID> = []
    /// The earliest `created_at` of the events pushed out since `takePushedOut` last took them:
    /// messages held on a branch that is not selected apart (they can open only after a change
    /// of branch, so fetching them again before one would only push them out again).
    private var pushedOutSince: Int64?
    private var heldPushedOutSince: Int64?

    init(limit: Int, byteLimit: Int = defaultByteLimit, events: [Event] = []) {
        self.limit = limit
        self.byteLimit = byteLimit
        self.events = Array(events.suffix(limit))
        for event in self.events { assignPosition(event.id) }
    }

    /// The events of a group's rows, in their order, with why each waits; nothing to write.
    init(limit: Int, byteLimit: Int = defaultByteLimit, rows: [StoredParkedEvent]) {
        self.limit = limit
        self.byteLimit = byteLimit
        for row in rows.suffix(limit) where positions[row.event.id] == nil {
            events.append(row.event)
            positions[row.event.id] = row.position
            nextPosition = max(nextPosition, row.position + 1)
            switch row.note {
            case .waiting: waiting.insert(row.event.id)
            case .held: held.insert(row.event.id)
            case .unopened: break
            }
        }
        // Rows beyond the limit (a smaller limit than the last run's) are deleted.
        for row in rows.dropLast(limit) { changes.removed.insert(row.position) }
    }

    /// Every event as rows to add: a list read from the settings record of a home written before
    /// the rows (`v20-parked-events`), to be moved.
    mutating func rewriteAll() {
        changes.added = events.compactMap { event in positions[event.id].map { StoredParkedEvent(position: $0, event: event, note: note(event.id)) } }
    }

    /// The rows written since the last call, and starts afresh.
    mutating func takeChanges() -> ParkedEventChanges {
        defer { changes = ParkedEventChanges() }
        return changes
    }

    var hasChanges: Bool { !changes.isEmpty }

    private mutating func assignPosition(_ id: EventID) {
        positions[id] = nextPosition
        nextPosition += 1
    }

    private func note(_ id: EventID) -> StoredParkedEvent.Note {
        waiting.contains(id) ? .waiting : held.contains(id) ? .held : .unopened
    }

    /// The bytes of an event as the budget counts them.
    static func size(_ event: Event) -> Int { event.content.utf8.count + 256 }

    /// Bytes held by the events that never opened.
    var unopenedBytes: Int {
        events.reduce(0) { $0 + (waiting.contains($1.id) || held.contains($1.id) ? 0 : Self.size($1)) }
    }

    var isEmpty: Bool { events.isEmpty }
    var count: Int { events.count }

    /// Parks `event` (once), kept for `reason` (`noteWaiting`), pushing events out beyond `limit`
    /// or, of those that never opened, beyond `byteLimit` (those that never opened first). Returns
    /// whether rows are to be written (`takeChanges`): the new one, and those pushed out.
    mutating func park(_ event: Event, reason: DropReason) -> Bool {
        guard positions[event.id] == nil else { return false }
        events.append(event)
        assignPosition(event.id)
        noteWaiting(event.id, reason: reason)
        if let position = positions[event.id] {
            changes.added.append(StoredParkedEvent(position: position, event: event, note: note(event.id)))
        }
        var unopened = unopenedBytes
        while events.count > limit || unopened > byteLimit {
            // The oldest that never opened; the oldest of all when every one opened.
            let first = events.firstIndex { !waiting.contains($0.id) && !held.contains($0.id) }
            guard let index = first ?? (events.count > limit ? 0 : nil) else { break }
            let out = events.remove(at: index)
            if first != nil { unopened -= Self.size(out) }
            if let position = positions.removeValue(forKey: out.id) { changes.removed.insert(position) }
            waiting.remove(out.id)
            if held.remove(out.id) != nil {
                heldPushedOutSince = min(heldPushedOutSince ?? out.createdAt, out.createdAt)
            } else {
                pushedOutSince = min(pushedOutSince ?? out.createdAt, out.createdAt)
            }
        }
        return !changes.isEmpty
    }

    /// The earliest `created_at` of the events pushed out since they were last taken (nil when none
    /// was), and starts counting afresh: the client fetches the group's events from there again
    /// once the group moved, so those that open now are taken in without waiting for a restart
    /// (N8). Held messages pushed out are taken only with `heldToo` (the group changed branches).
    mutating func takePushedOut(heldToo: Bool) -> Int64? {
        let held = heldToo ? heldPushedOutSince : nil
        defer {
            pushedOutSince = nil
            if heldToo { heldPushedOutSince = nil }
        }
        return [pushedOutSince, held].compactMap { $0 }.min()
    }

    /// Takes `id` out (it opened, or failed for good).
    mutating func remove(_ id: EventID) {
        events.removeAll { $0.id == id }
        if let position = positions.removeValue(forKey: id) { changes.removed.insert(position) }
    }

    /// Notes why parked event `id` waits (`reason`, on parking and again on each retry). It opened
    /// and waits for another event, a proposal still to come: it counts as waiting. It opened on
    /// a branch that is not selected: it is held, and has its disposition (it is shown if that
    /// branch wins), as in MDK 0.9.14, where such a group is settled; counting it kept the group
    /// syncing, and our sends held back, for as long as the losing branch's traffic stayed parked
    /// (`retryOrder` tries it only after a change of branch). Both opened, so junk does not push
    /// them out. Any other reason: it did not open.
    mutating func noteWaiting(_ id: EventID, reason: DropReason) {
        let before = note(id)
        waiting.remove(id)
        held.remove(id)
        switch reason {
        case .mls(.missingProposal): waiting.insert(id)
        case .heldOnCompetingBranch: held.insert(id)
        default: break
        }
        let after = note(id)
        if after != before, let position = positions[id] {
            if let index = changes.added.firstIndex(where: { $0.position == position }) {
                changes.added[index].note = after
            } else {
                changes.notes[position] = after
            }
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

    // MARK: Persistence (the settings record before `v20-parked-events`)

    /// The stored record of the first homes: the count, then each event's JSON, then why those that opened wait (the
    /// count, then each one's id and 1 for waiting or 2 for held), so that after a restart junk
    /// still cannot push them out; nil when nothing is parked (the record is removed). A reader of
    /// the first format stops after the events.
    var record: Data? {
        guard !events.isEmpty else { return nil }
        var w = TLSWriter(capacity: 1024)
        w.write(UInt32(events.count))
        for event in events { w.writeOpaque(Data(event.jsonBytes)) }
        let notes = events.compactMap { event in
            waiting.contains(event.id) ? (event.id, UInt8(1)) : held.contains(event.id) ? (event.id, UInt8(2)) : nil
        }
        w.write(UInt32(notes.count))
        for (id, note) in notes {
            w.writeFixed(id.bytes)
            w.write(note)
        }
        return w.data
    }

    /// The events of a stored `record`, with why those that opened wait (a record without that part,
    /// of the first format, reads as none having opened): none when it claims more than `limit`;
    /// an entry that does not read as an event is skipped.
    init(limit: Int, byteLimit: Int = defaultByteLimit, record data: Data) {
        var r = TLSReader(data)
        guard let count = try? r.readUInt32(), count <= limit else {
            self.init(limit: limit, byteLimit: byteLimit)
            return
        }
        let events = (0..<count).compactMap { _ in (try? r.readOpaque()).flatMap { try? Event(jsonData: $0) } }
        self.init(limit: limit, byteLimit: byteLimit, events: events)
        guard let notes = try? r.readUInt32(), notes <= count else { return }
        let parked = Set(self.events.map(\.id))
        for _ in 0..<notes {
            guard let bytes = try? r.readFixed(32), let id = try? EventID(bytes: bytes), let note = try? r.readUInt8() else { return }
            guard parked.contains(id) else { continue }
            if note == 1 { waiting.insert(id) } else if note == 2 { held.insert(id) }
        }
    }
}
