import Foundation
import MLS
import Nostr

/// Where the key that opened a kind-445 event came from.
package enum PeelKeySource: Sendable, Hashable {
    /// The applied branch's key of this epoch: the current one or a retained one.
    case epoch(UInt64)
    /// A key of the alternate branch that forked at `forkEpoch` and whose last commit is `commit`
    /// (the other side of a race, marmot-wire §5.7).
    case alternate(forkEpoch: UInt64, commit: EventID)
    /// The key of a retained state of a group engine's branch graph (`GroupEngine.peelKeys()`).
    case state(BranchGraph.NodeID, epoch: UInt64)
}

/// One group-event key to try, with where it came from.
package struct PeelKey: Sendable {
    package let key: GroupEventKey
    package let source: PeelKeySource

    package init(_ key: GroupEventKey, from source: PeelKeySource) {
        self.key = key
        self.source = source
    }
}

/// A kind-445 event taken out of its envelope: the MLSMessage, its header and the key that opened it.
package struct PeeledGroupEvent: Sendable {
    package let message: MLSMessage
    /// The MLSMessage's bytes as they were decrypted (what an engine takes, `GroupEngine.receive`).
    package let bytes: Data
    package let epoch: UInt64
    package let contentType: ContentType
    package let openedBy: PeelKeySource
    /// The MLS group id the message states (the expected one: the peeler checked it).
    package let groupID: GroupID

    /// The alternate branch that opened it, if it was not the applied branch.
    package var alternate: (forkEpoch: UInt64, commit: EventID)? {
        if case .alternate(let forkEpoch, let commit) = openedBy { return (forkEpoch, commit) }
        return nil
    }
}

/// The transport peeler of one group: takes a kind-445 event out of its Nostr envelope, without
/// touching any state.
///
/// Kept apart from the client actor so that the envelope rules, the key order and the checks before
/// MLS can be read and tested alone, as MDK 0.9.14 splits its transport peeler
/// (`transport-nostr-peeler`) from its engine. In order (marmot-wire §5.5 steps 2-4, MIP-03): the
/// version's envelope checks with `now` and the window, the `h` of this group, decryption with the
/// keys in the order given (the caller lists the current and retained epochs first, then the
/// alternate branches), then the MLSMessage, its header and its MLS group id. No clock, store or
/// relay inside: the time is an input.
package struct GroupEventPeeler: Sendable {
    package let rules: any GroupRules
    package let nostrGroupID: NostrGroupID
    package let groupID: GroupID
    package let keys: [PeelKey]
    package let window: GroupEvent.TimeWindow

    package init(
        rules: any GroupRules, nostrGroupID: NostrGroupID, groupID: GroupID, keys: [PeelKey], window: GroupEvent.TimeWindow
    ) {
        self.rules = rules
        self.nostrGroupID = nostrGroupID
        self.groupID = groupID
        self.keys = keys
        self.window = window
    }

    /// Peels `event` received at `now`, or says why it is dropped: the version's envelope error,
    /// `unknownGroup` for another `h`, `undecryptable` when no key opens it (it may open after a
    /// commit still to come), `malformedMessage` when what opened is no MLS message of this group.
    package func peel(_ event: Event, now: Int64) throws(DropReason) -> PeeledGroupEvent {
        let validated = try rules.validateEnvelope(event, now: now, window: window)
        guard validated.nostrGroupID == nostrGroupID else { throw .unknownGroup(validated.nostrGroupID) }
        let opened: (plaintext: Data, keyIndex: Int)
        do {
            opened = try validated.decrypt(tryingKeys: keys.map(\.key))
        } catch .decryptionFailed {
            throw .undecryptable
        } catch {
            throw .invalidGroupEvent(error)
        }
        let message: MLSMessage
        do {
            message = try MLSMessage(tlsSerialized: opened.plaintext)
        } catch {
            throw .malformedMessage("\(error)")
        }
        let header: (group: GroupID, epoch: UInt64, contentType: ContentType)
        do {
            header = try MLSGroup.header(of: message)
        } catch {
            throw .malformedMessage("wire format \(message.wireFormat) is not a group message")
        }
        guard header.group == groupID else { throw .malformedMessage("MLS group id \(header.group) is not the h group's") }
        return PeeledGroupEvent(
            message: message, bytes: opened.plaintext, epoch: header.epoch, contentType: header.contentType,
            openedBy: keys[opened.keyIndex].source, groupID: header.group)
    }

    /// Why an event whose `h` names none of our groups is dropped: what is wrong with its envelope
    /// under the v1 checks (the stricter ones, with a window), else `unknownGroup`.
    package static func dropUnknown(_ event: Event, now: Int64, window: GroupEvent.TimeWindow) -> DropReason {
        do {
            let validated = try V1GroupRules().validateEnvelope(event, now: now, window: window)
            return .unknownGroup(validated.nostrGroupID)
        } catch {
            return error
        }
    }
}
