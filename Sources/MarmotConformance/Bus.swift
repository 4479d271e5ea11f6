import Foundation
import MLS

/// The deterministic in-process message bus the scenarios run over: one FIFO queue, a mailbox per
/// client, and the faults a scenario asks for (partition, withholding, duplicates, reordering,
/// omission), as MDK's simulator bus does them (`cgka-conformance-simulator/src/bus.rs`, ordered
/// policy). Nothing is delivered until `deliverAll`; nothing is processed until a client ticks.
final class Bus {
    /// What an envelope carries, for selectors.
    enum Kind: Equatable {
        case commit, proposal, application
        case welcome(recipient: String, keyPackage: Data)
    }

    struct Envelope {
        let id: Int
        let sender: String
        let kind: Kind
        let bytes: Data
        /// The scenario publication it belongs to (`pending` label), if any.
        let publication: String?
    }

    private(set) var queue: [Envelope] = []
    private var mailboxes: [String: [Envelope]] = [:]
    private var delayed: [String: [Envelope]] = [:]
    private var partition: Set<String>?
    private var exposed: Set<Int> = []
    private var nextID = 0
    let clients: [String]

    init(clients: [String]) {
        self.clients = clients
        for client in clients { mailboxes[client] = [] }
    }

    @discardableResult
    func send(from sender: String, kind: Kind, bytes: Data, publication: String?) -> Int {
        nextID += 1
        queue.append(Envelope(id: nextID, sender: sender, kind: kind, bytes: bytes, publication: publication))
        return nextID
    }

    /// Moves every queued envelope into the mailboxes of its recipients (all others, or a Welcome's
    /// invitee), skipping clients outside the partition.
    func deliverAll() {
        let batch = queue
        queue = []
        for envelope in batch {
            for client in clients where client != envelope.sender {
                if let partition, !partition.contains(client) { continue }
                if case .welcome(let recipient, _) = envelope.kind, recipient != client { continue }
                mailboxes[client, default: []].append(envelope)
                exposed.insert(envelope.id)
            }
        }
    }

    /// Takes a client's mailbox.
    func takeMailbox(_ client: String) -> [Envelope] {
        defer { mailboxes[client] = [] }
        return mailboxes[client] ?? []
    }

    func mailboxCount(_ client: String) -> Int { mailboxes[client]?.count ?? 0 }

    func setPartition(_ allow: [String]?) { partition = allow.map(Set.init) }

    /// Retracts a publication's envelopes still queued or withheld; false when one reached a mailbox.
    func retract(_ ids: [Int]) -> Bool {
        guard !ids.contains(where: exposed.contains) else { return false }
        queue.removeAll { ids.contains($0.id) }
        for label in delayed.keys { delayed[label]?.removeAll { ids.contains($0.id) } }
        return true
    }

    /// The queue index a selector names: sender, class, publication and occurrence (MDK
    /// `semantic_queue_index`).
    func index(of selector: JSON) -> Int? {
        let sender = selector["sender"]?.string
        let kind = selector["class"]?.string
        let publication = selector["publication"]?.string ?? selector["action_id"]?.string
        let occurrence = selector["occurrence"]?.int ?? 0
        let matching = queue.indices.filter { index in
            let envelope = queue[index]
            if let sender, envelope.sender != sender { return false }
            if let publication, envelope.publication != publication { return false }
            if let kind, !Self.matches(kind, envelope.kind) { return false }
            return true
        }
        return occurrence < matching.count ? matching[occurrence] : nil
    }

    private static func matches(_ kind: String, _ actual: Kind) -> Bool {
        switch (kind, actual) {
        case ("welcome", .welcome): true
        case ("group_message", .commit), ("group_message", .proposal), ("group_message", .application): true
        case ("commit", .commit), ("proposal", .proposal), ("application", .application): true
        default: false
        }
    }

    func omit(at index: Int) { queue.remove(at: index) }

    func duplicate(at index: Int) { queue.insert(queue[index], at: index + 1) }

    func withhold(at index: Int, label: String) { delayed[label, default: []].append(queue.remove(at: index)) }

    func release(_ label: String) -> Bool {
        guard let held = delayed.removeValue(forKey: label) else { return false }
        queue += held
        return true
    }

    /// Reorders the whole queue; `order` must name every queued envelope once.
    func reorder(_ order: [Int]) -> Bool {
        guard order.count == queue.count, Set(order).count == order.count, order.allSatisfy(queue.indices.contains) else {
            return false
        }
        queue = order.map { queue[$0] }
        return true
    }

    /// Whether anything is still queued, withheld or undelivered for `client`.
    func hasWork(for client: String) -> Bool { mailboxCount(client) > 0 }
}
