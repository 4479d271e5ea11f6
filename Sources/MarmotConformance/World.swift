import Foundation
import Marmot
import MLS
import Nostr

/// What a client showed at an `observe` step (MDK `ClientObservation`).
struct Observation {
    let client: String
    let epoch: UInt64
    let memberCount: Int
    let groupName: String
    let groupDescription: String
    let payloads: [String]
    let added: [String]
    let removed: [String]
    let counts: SimClient.Counts
    let epochChanges: [(from: UInt64, to: UInt64)]
    /// Canonical state for exact equivalence: members, GroupContext extensions, epoch authenticator.
    let exact: [Data]
}

/// The scenario's world: the bus, the clients, and everything recorded for the expectations.
final class World {
    let bus: Bus
    private(set) var clients: [String: SimClient] = [:]
    private var groupLabels: [GroupID: String] = [:]
    private var labels: [PublicKey: String] = [:]
    var observations: [Observation] = []
    var adminObservations: [String: [String]] = [:]
    var resolutions: [(step: Int, client: String, pending: String, resolution: String)] = []
    var errors: [(step: Int, client: String, operation: String, error: String)] = []
    var probes: [String: Bool] = [:]
    var failures: [String] = []
    private(set) var log: [String] = []

    init(clients names: [String]) {
        bus = Bus(clients: names)
        for name in names {
            let client = SimClient(label: name, world: self)
            clients[name] = client
            labels[client.publicKey] = name
        }
    }

    func client(_ name: String) -> SimClient {
        guard let client = clients[name] else { fatalError("vector names an undeclared client \(name)") }
        return client
    }

    func hasClient(_ name: String) -> Bool { clients[name] != nil }

    func log(_ line: String) { log.append(line) }

    func register(_ group: GroupID, as label: String) { groupLabels[group] = label }
    func groupLabel(of id: GroupID) -> String? { groupLabels[id] }

    func label(of credential: Credential) -> String? {
        guard case .basic(let identity) = credential, let key = try? PublicKey(bytes: identity) else { return nil }
        return labels[key]
    }

    func label(of key: PublicKey) -> String { labels[key] ?? key.hex }

    /// Records what `name` shows in `group` now.
    func observe(_ name: String, group: String) {
        let client = client(name)
        let engine = client.engineLabel(group).flatMap { client.engines[$0] }
        let metadata = engine?.metadata
        var exact: [Data] = []
        if let state = engine?.state {
            exact.append(Data(state.members.map { $0.credential.tlsSerialized }.joined()))
            exact.append(Data(state.extensions.map(\.tlsSerialized).joined()))
            exact.append(state.epochAuthenticator)
        }
        observations.append(Observation(
            client: name, epoch: engine?.epoch ?? 0, memberCount: engine.map { $0.isActive ? $0.members.count : 0 } ?? 0,
            groupName: metadata?.name ?? "", groupDescription: metadata?.groupDescription ?? "",
            payloads: client.payloads, added: client.added, removed: client.removed, counts: client.counts,
            epochChanges: client.epochChanges, exact: exact))
    }

    func latest(_ name: String) -> Observation? { observations.last { $0.client == name } }
}
