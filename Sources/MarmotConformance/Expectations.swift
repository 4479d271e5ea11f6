import Foundation
import Marmot

/// The expected outcomes of a scenario vector, checked against what the world recorded (MDK
/// `vector.rs` `TraceExpectation::compare`). Each unmet expectation yields one line.
enum Expectations {
    static func check(vector: JSON, world: World) throws -> [String] {
        if let trace = vector["expected_trace"] { return try checkTrace(trace, world: world) }
        guard let outcomes = try vector.required("expected_outcomes").array else {
            throw VectorError.wrongType(vector.path, "expected_outcomes")
        }
        return try outcomes.compactMap { try check(outcome: $0, world: world) }
    }

    /// A whole expected trace: every pending resolution and every observation, field by field.
    static func checkTrace(_ trace: JSON, world: World) throws -> [String] {
        var failures: [String] = []
        for item in try trace.required("pending_resolutions").array ?? [] {
            if let failure = try pendingResolution(item, world: world) { failures.append(failure) }
        }
        let expected = try trace.required("observations").array ?? []
        if expected.count != world.observations.count {
            failures.append("trace has \(world.observations.count) observations, expected \(expected.count)")
        }
        for (item, observed) in zip(expected, world.observations) {
            let counts = try item.required("event_counts")
            let actual = observed.counts
            let fields: [(String, Bool)] = [
                ("client", observed.client == (try item.string("client"))),
                ("epoch", Int(observed.epoch) == (try item.int("epoch"))),
                ("member_count", observed.memberCount == (try item.int("member_count"))),
                ("group_name", observed.groupName == (try item.string("group_name"))),
                ("received_payloads", observed.payloads == (try item.strings("received_payloads"))),
                ("removed_members", observed.removed == (try item.strings("removed_members"))),
                ("message_received", actual.messageReceived == (try counts.int("message_received"))),
                ("member_added", actual.memberAdded == (try counts.int("member_added"))),
                ("member_removed", actual.memberRemoved == (try counts.int("member_removed"))),
                ("epoch_changed", actual.epochChanged == (try counts.int("epoch_changed"))),
                ("app_invalidated", actual.appInvalidated == (try counts.int("app_invalidated"))),
            ]
            for (field, holds) in fields where !holds {
                failures.append("observation of \(observed.client): \(field) differs (epoch \(observed.epoch), members \(observed.memberCount), payloads \(observed.payloads), counts \(actual))")
            }
        }
        return failures
    }

    private static func pendingResolution(_ item: JSON, world: World) throws -> String? {
        let step = try item.int("step_index"), client = try item.string("client")
        let pending = try item.string("pending"), resolution = try item.string("resolution")
        let found = world.resolutions.first { $0.step == step && $0.client == client && $0.pending == pending }
        guard let found else { return "no resolution of \(client)'s \(pending) at step \(step)" }
        return found.resolution == resolution ? nil : "\(client)'s \(pending) was \(found.resolution), expected \(resolution)"
    }

    static func check(outcome item: JSON, world: World) throws -> String? {
        switch try item.string("type") {
        case "pending_resolution":
            return try pendingResolution(item, world: world)
        case "expected_error":
            let step = try item.int("step_index"), client = try item.string("client"), error = try item.string("error")
            guard let found = world.errors.first(where: { $0.step == step && $0.client == client }) else {
                return "no error recorded for \(client) at step \(step)"
            }
            return found.error == error ? nil : "\(client) at step \(step) got \(found.error), expected \(error)"
        case "admin_policy":
            let client = try item.string("client"), admins = try item.strings("admins")
            let observed = world.adminObservations[client]
            return observed == admins ? nil : "\(client) admins \(observed ?? []), expected \(admins)"
        case "client_state":
            let client = try item.string("client")
            guard let observed = world.latest(client) else { return "\(client) was never observed" }
            var problems: [String] = []
            if Int(observed.epoch) != (try item.int("epoch")) { problems.append("epoch \(observed.epoch)") }
            if observed.memberCount != (try item.int("member_count")) { problems.append("members \(observed.memberCount)") }
            if let payloads = try item.optionalStrings("received_payloads"), payloads != observed.payloads {
                problems.append("payloads \(observed.payloads), expected \(payloads)")
            }
            if let added = try item.optionalStrings("added_members"), added != observed.added {
                problems.append("added \(observed.added), expected \(added)")
            }
            if let removed = try item.optionalStrings("removed_members"), removed != observed.removed {
                problems.append("removed \(observed.removed), expected \(removed)")
            }
            return problems.isEmpty ? nil : "client_state \(client): " + problems.joined(separator: "; ") + " (expected \(item))"
        case "application_payload_multiset":
            let client = try item.string("client")
            guard let observed = world.latest(client) else { return "\(client) was never observed" }
            let expected = try item.strings("payloads").sorted()
            return observed.payloads.sorted() == expected ? nil : "\(client) payloads \(observed.payloads), expected \(expected)"
        case "group_profile":
            let client = try item.string("client")
            guard let observed = world.latest(client) else { return "\(client) was never observed" }
            let name = try item.string("name"), description = try item.string("description")
            return observed.groupName == name && observed.groupDescription == description
                ? nil : "\(client) shows \"\(observed.groupName)\" / \"\(observed.groupDescription)\", expected \"\(name)\" / \"\(description)\""
        case "clients_converged":
            let names = try item.strings("clients")
            let observed = names.compactMap(world.latest)
            guard observed.count == names.count, let first = observed.first else { return "not every client of \(names) was observed" }
            let same = observed.allSatisfy {
                $0.epoch == first.epoch && $0.memberCount == first.memberCount && $0.groupName == first.groupName
                    && $0.groupDescription == first.groupDescription
            }
            let epochOK = item["epoch"]?.int.map { $0 == Int(first.epoch) } ?? true
            let countOK = item["member_count"]?.int.map { $0 == first.memberCount } ?? true
            return same && epochOK && countOK
                ? nil : "clients \(names) not converged: " + observed.map { "\($0.client)@\($0.epoch)/\($0.memberCount)/\($0.groupName)" }.joined(separator: ", ")
        case "clients_exactly_equivalent":
            let names = try item.strings("clients")
            let observed = names.compactMap(world.latest)
            guard observed.count == names.count, let first = observed.first, !first.exact.isEmpty else {
                return "not every client of \(names) was observed in a group"
            }
            let differing = observed.filter { $0.exact != first.exact }.map(\.client)
            return differing.isEmpty ? nil : "\(differing) differ from \(first.client) in canonical state"
        case "no_pending_work":
            let busy = try item.strings("clients").filter { world.client($0).hasPendingWork }
            return busy.isEmpty ? nil : "pending work left at \(busy)"
        case "clients_bidirectionally_decryptable":
            let names = try item.strings("clients")
            var failed: [String] = []
            for a in names {
                for b in names where a != b && world.probes["\(a)->\(b)"] != true { failed.append("\(a)->\(b)") }
            }
            return failed.isEmpty ? nil : "probes failed: \(failed)"
        case "client_epoch_changes":
            let client = try item.string("client")
            guard let observed = world.latest(client) else { return "\(client) was never observed" }
            let expected = try (item.required("changes").array ?? []).map { (UInt64(try $0.int("from")), UInt64(try $0.int("to"))) }
            let same = expected.count == observed.epochChanges.count
                && zip(expected, observed.epochChanges).allSatisfy { $0.0 == $1.from && $0.1 == $1.to }
            return same ? nil : "\(client) epoch changes \(observed.epochChanges.map { "\($0.from)→\($0.to)" }), expected \(expected.map { "\($0.0)→\($0.1)" })"
        case "convergence_decision":
            return try convergenceDecision(item, world: world)
        case let other:
            return "unsupported expectation \(other)"
        }
    }

    /// The client's settled decision (the last selection with competing branches) must match every
    /// field the expectation states; without a client, any client's.
    private static func convergenceDecision(_ item: JSON, world: World) throws -> String? {
        let names = item["client"]?.string.map { [$0] } ?? world.bus.clients
        var seen: [String] = []
        for name in names {
            for decision in world.client(name).decisions.values {
                guard let selected = decision.selected, let score = decision.selectedScore else { continue }
                var problems: [String] = []
                if let epoch = item["selected_tip_epoch"]?.int, Int(selected.tipEpoch) != epoch { problems.append("tip \(selected.tipEpoch)") }
                if let rule = item["decisive_rule"]?.string, decision.decisiveRule?.rawValue != rule {
                    problems.append("rule \(decision.decisiveRule?.rawValue ?? "none")")
                }
                if let quorum = item["witness_quorum_met"]?.bool, score.witnessQuorumMet != quorum { problems.append("quorum \(score.witnessQuorumMet)") }
                if let minimum = item["min_app_witness_score"]?.int, score.appWitnessScore < minimum { problems.append("witness score \(score.appWitnessScore)") }
                if problems.isEmpty { return nil }
                seen.append("\(name): " + problems.joined(separator: ", "))
            }
        }
        return seen.isEmpty ? "no settled convergence decision at \(names)" : "convergence decision differs: \(seen)"
    }
}
