import Foundation
import Marmot
import MLS
import Nostr

/// Runs one MDK scenario vector over our `GroupEngine`s and a deterministic bus, then checks its
/// expected outcomes (or expected trace). The step and outcome semantics are MDK 0.9.14's simulator
/// (`cgka-conformance-simulator/src/scenario.rs`, `vector.rs`).
struct ScenarioRunner {
    enum Verdict {
        case pass
        case fail(String)
        case skip(String)
    }

    let vector: JSON

    func run() -> (name: String, verdict: Verdict, log: [String]) {
        let name = vector["scenario_name"]?.string ?? vector["scenario"]?["name"]?.string ?? "unnamed"
        do {
            let scenario = try vector.required("scenario")
            let world = World(clients: try scenario.strings("clients"))
            guard let steps = try scenario.required("steps").array else { throw VectorError.wrongType(scenario.path, "steps") }
            for (index, step) in steps.enumerated() {
                do {
                    try run(step, index: index, group: "default", in: world, later: Array(steps[(index + 1)...]))
                } catch {
                    return (name, .fail("step \(index) (\(step["type"]?.string ?? "?")): \(error)"), world.log)
                }
            }
            let failures = try Expectations.check(vector: vector, world: world)
            if let first = failures.first {
                let more = failures.count > 1 ? " (and \(failures.count - 1) more unmet)" : ""
                return (name, .fail(first + more), world.log)
            }
            return (name, .pass, world.log)
        } catch {
            return (name, .fail("\(error)"), [])
        }
    }

    private func run(_ step: JSON, index: Int, group: String, in world: World, later: [JSON]) throws {
        let type = try step.string("type")
        switch type {
        case "in_group":
            try run(try step.required("action"), index: index, group: try step.string("group"), in: world, later: later)
        case "create_group":
            try createGroup(step, group: group, world: world, later: later)
        case "invite_members":
            let inviter = world.client(try step.string("inviter"))
            let invitees = try step.strings("invitees").map(world.client)
            try inviter.publish(group: try label(inviter, group), label: try step.string("pending"), invitees: invitees) { engine, packages in
                try engine.commit(adding: packages)
            }
        case "remove_members":
            let remover = world.client(try step.string("remover"))
            let members = try step.strings("members").map { world.client($0).publicKey }
            try remover.publish(group: try label(remover, group), label: try step.string("pending")) { engine, _ in
                try engine.commit(removing: members)
            }
        case "self_update":
            let client = world.client(try step.string("client"))
            try client.publish(group: try label(client, group), label: try step.string("pending")) { engine, _ in
                try engine.commit(rotateSigner: true)
            }
        case "update_group_data", "update_group_profile":
            let client = world.client(try step.string("client"))
            let name = step["name"]?.string
            let description = step["description"]?.string
            try client.publish(group: try label(client, group), label: try step.string("pending")) { engine, _ in
                guard var metadata = engine.metadata else { throw EngineError.notAMember }
                if let name { metadata.name = name }
                if let description { metadata.groupDescription = description }
                return try engine.commit(proposals: try engine.rules.proposals(changing: engine.state.extensions, to: metadata))
            }
        case "update_admin_policy":
            let client = world.client(try step.string("client"))
            let admins = try step.strings("admins").map { world.client($0).publicKey }
            try client.publish(group: try label(client, group), label: try step.string("pending")) { engine, _ in
                try Self.adminCommit(&engine, admins: admins)
            }
        case "expect_update_admin_policy_error":
            let client = world.client(try step.string("client"))
            let admins = try step.strings("admins").map { world.client($0).publicKey }
            guard var engine = client.engines[try label(client, group)] else { throw VectorError.unknown("no group") }
            var observed = "none"
            do {
                _ = try Self.adminCommit(&engine, admins: admins)
            } catch let error as EngineError {
                switch error {
                case .notAdmin: observed = "not_group_admin"
                case .invalidAdminPolicy: observed = "invalid_admin_policy"
                default: observed = "\(error)"
                }
            }
            world.errors.append((index, client.label, "update_admin_policy", observed))
        case "acknowledge_outbound":
            let client = world.client(try step.string("client"))
            let accepted: Bool
            switch try step.string("outcome") {
            case "accepted": accepted = true
            case "reached_no_endpoint", "failed", "rejected": accepted = false
            case let other: throw VectorError.unknown("unknown outbound outcome \(other)")
            }
            let results = client.acknowledge(step["publication"]?.string, accepted: accepted)
            if results.isEmpty, step["publication"] != nil { throw VectorError.unknown("no pending publication to acknowledge") }
            for (pending, ok) in results {
                world.resolutions.append((index, client.label, pending ?? "", ok ? "confirmed" : "rolled_back"))
            }
        case "send_app_message":
            world.client(try step.string("sender")).send(try step.string("payload"), group: group)
        case "leave":
            let client = world.client(try step.string("client"))
            let name = try label(client, group)
            guard var engine = client.engines[name] else { throw VectorError.unknown("no group") }
            let bytes = try engine.proposeLeave()
            client.engines[name] = engine
            world.bus.send(from: client.label, kind: .proposal, bytes: bytes, publication: nil)
        case "deliver_all":
            world.bus.deliverAll()
        case "tick":
            for name in try step.strings("clients") { world.client(name).tick() }
        case "advance_time":
            break  // the engine has no timers; virtual time changes nothing it decides
        case "await_quiescence":
            for _ in 0..<16 {
                world.bus.deliverAll()
                for name in world.bus.clients { world.client(name).tick() }
                if world.bus.queue.isEmpty && world.bus.clients.allSatisfy({ world.bus.mailboxCount($0) == 0 }) { break }
            }
        case "observe", "observe_exact":
            for name in try step.strings("clients") { world.observe(name, group: group) }
        case "observe_admin_policy":
            for name in try step.strings("clients") {
                let client = world.client(name)
                let admins = client.engineLabel(group).flatMap { client.engines[$0]?.metadata?.admins } ?? []
                world.adminObservations[name] = admins.map(world.label)
            }
        case "probe_bidirectional_decryptability":
            try probe(try step.strings("clients"), group: group, world: world)
        case "clear_events":
            for name in try step.strings("clients") { world.client(name).clearEvents() }
        case "omit_message", "duplicate_message", "withhold_message":
            let selector = try step.required("selector")
            guard let at = world.bus.index(of: selector) else { throw VectorError.unknown("no queued message matches \(selector)") }
            switch type {
            case "omit_message": world.bus.omit(at: at)
            case "duplicate_message": world.bus.duplicate(at: at)
            default: world.bus.withhold(at: at, label: try step.string("label"))
            }
        case "release_withheld":
            guard world.bus.release(try step.string("label")) else { throw VectorError.unknown("nothing withheld under that label") }
        case "reorder_messages":
            guard let selectors = try step.required("order").array else { throw VectorError.wrongType(step.path, "order") }
            let order = try selectors.map { selector in
                guard let at = world.bus.index(of: selector) else { throw VectorError.unknown("no queued message matches \(selector)") }
                return at
            }
            guard world.bus.reorder(order) else { throw VectorError.unknown("the order is not a permutation of the queue") }
        case "set_partition":
            world.bus.setPartition(try step.strings("allow"))
        case "clear_partition":
            world.bus.setPartition(nil)
        case "restart_client":
            try world.client(try step.string("client")).restart()
        case "barrier":
            break
        case "assert":
            try assertion(try step.required("assertion"), world: world)
        default:
            throw VectorError.unknown("unsupported step type \(type)")
        }
    }

    private func label(_ client: SimClient, _ group: String) throws -> String {
        guard let name = client.engineLabel(group) else { throw VectorError.unknown("\(client.label) has no group") }
        return name
    }

    /// A commit setting the admin policy to `admins`: refused when we are not an admin or the set is
    /// empty or names a non-member (MDK `UpdateAdminPolicy` errors).
    static func adminCommit(_ engine: inout GroupEngine, admins: [PublicKey]) throws -> OwnCommit {
        guard var metadata = engine.metadata else { throw EngineError.notAMember }
        guard metadata.isAdmin(engine.me) else { throw EngineError.notAdmin }
        guard !admins.isEmpty else { throw EngineError.invalidAdminPolicy("empty") }
        let members = Set(engine.members)
        if let stray = admins.first(where: { !members.contains($0) }) { throw EngineError.invalidAdminPolicy("\(stray.hex) is not a member") }
        metadata.admins = Array(Set(admins)).sorted()
        return try engine.commit(proposals: try engine.rules.proposals(changing: engine.state.extensions, to: metadata))
    }

    /// The current profile makes a new group canonical at once (MDK `FoundingGroupCreated`); the
    /// legacy lifecycle of the other vectors waits for the founding publication's acknowledgement.
    private var foundingIsImmediate: Bool { vector["application_profile"]?["name"]?.string == "current" }

    /// Without `initial_admins`, the invitees that later make an admin-only change are admins (MDK
    /// `scenario.rs` `scenario_initial_admins`).
    private static func defaultAdmins(_ invitees: [String], later: [JSON]) -> [String] {
        let actors = Set(later.compactMap { step -> String? in
            let action = step["type"]?.string == "in_group" ? step["action"] : step
            switch action?["type"]?.string {
            case "invite_members": return action?["inviter"]?.string
            case "update_group_data", "update_group_profile", "update_admin_policy": return action?["client"]?.string
            default: return nil
            }
        })
        return invitees.filter(actors.contains)
    }

    private func createGroup(_ step: JSON, group: String, world: World, later: [JSON]) throws {
        let creator = world.client(try step.string("creator"))
        let name = try step.string("name")
        let inviteeNames = try step.strings("invitees")
        let invitees = inviteeNames.map(world.client)
        let adminNames = try step.optionalStrings("initial_admins") ?? Self.defaultAdmins(inviteeNames, later: later)
        let admins = [creator.publicKey] + adminNames.map { world.client($0).publicKey }
        let metadata = GroupMetadata(
            nostrGroupID: try NostrGroupID(bytes: ScenarioIdentity.nostrGroupID(creator: creator.publicKey, name: name)),
            name: name, description: "", admins: admins, relays: [try RelayURL("wss://group.example")])
        var packages: [(KeyPackage, Data, String)] = []
        for invitee in invitees {
            let (package, ref) = try invitee.freshKeyPackage()
            packages.append((package, ref, invitee.label))
        }
        let (engine, founding) = try GroupEngine.found(
            rules: V2GroupRules(), keys: creator.keys, metadata: metadata, invitees: packages.map(\.0))
        world.register(engine.state.groupID, as: group)
        creator.adopt(engine, as: group)
        guard let founding, let welcome = founding.pending.welcomeMessage else { return }
        let pending = try step.string("pending")
        let envelopes = packages.map { _, ref, invitee in
            world.bus.send(
                from: creator.label, kind: .welcome(recipient: invitee, keyPackage: ref), bytes: welcome.tlsSerialized,
                publication: pending)
        }
        creator.publications.append(SimClient.Publication(
            label: pending, group: group, commit: founding, envelopes: envelopes, founding: true))
        if foundingIsImmediate { _ = creator.acknowledge(pending, accepted: true) }
    }

    /// Each client sends a probe to every other directly; every one must open.
    private func probe(_ names: [String], group: String, world: World) throws {
        for sender in names {
            for receiver in names where receiver != sender {
                let from = world.client(sender), to = world.client(receiver)
                guard let fromGroup = from.engineLabel(group), var fromEngine = from.engines[fromGroup],
                      let toGroup = to.engineLabel(group), var toEngine = to.engines[toGroup] else {
                    world.probes["\(sender)->\(receiver)"] = false
                    continue
                }
                let bytes = try fromEngine.encrypt("probe:\(sender)->\(receiver)", createdAt: 1_700_000_000)
                from.engines[fromGroup] = fromEngine
                let outputs = toEngine.receive(bytes)
                to.engines[toGroup] = toEngine
                world.probes["\(sender)->\(receiver)"] = outputs.contains { if case .application = $0 { true } else { false } }
            }
        }
    }

    private func assertion(_ item: JSON, world: World) throws {
        let predicate = try item.required("predicate")
        switch try predicate.string("type") {
        case "payload_count":
            let client = world.client(try predicate.string("client"))
            let payload = try predicate.string("payload")
            let count = client.payloads.filter { $0 == payload }.count
            let expected = try predicate.int("count")
            let mode = item["mode"]?.string ?? "exactly"
            let holds = switch mode {
            case "at_least": count >= expected
            case "at_most": count <= expected
            default: count == expected
            }
            if !holds { throw VectorError.unknown("\(client.label) has \(count) × \(payload), expected \(mode) \(expected)") }
        case let other:
            throw VectorError.unknown("unsupported assertion \(other)")
        }
    }
}
