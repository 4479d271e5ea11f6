import Foundation
import MarmotWire
import MLS
import Nostr

extension GroupRuntime {
    /// Takes what one input made of the group before the engine rows recording that input are
    /// written: an error undoes the input (the engine goes back to where it was, and the event is
    /// taken again when a relay gives it again), so a crash or a failed write between the two can
    /// show a message twice (stored once: it is kept by its inner event's id) but never lose one.
    /// `event` is the kind-445 event the input came in (nil for our own commit's confirmation).
    package typealias Keeper = @Sendable (_ outputs: [EngineOutput], _ event: EventID?) throws -> Void

    /// A keeper that stores the group's messages in `store`: each shown message (ours from another
    /// device as sent, others' as received, with the epoch it opened in), and each message of a
    /// branch that lost marked invalidated (issue 24: the renderers show it so).
    package static func storingMessages(of groupID: GroupID, in store: GRDBMarmotStore, me: PublicKey) -> Keeper {
        { outputs, event in
            for output in outputs {
                switch output {
                case .application(let sender, let rumor, let epoch, _, _):
                    let mine = sender == me
                    var message = StoredMessage(
                        rumor: rumor, mlsGroupID: groupID, isMine: mine, deliveryState: mine ? .sent : .received, outerEventID: event)
                    message.epoch = epoch
                    try store.saveMessage(message)
                case .branchSwitched(_, _, let invalidated):
                    for rumor in invalidated {
                        try store.updateDeliveryState(mlsGroupID: groupID, rumorID: rumor, state: .invalidated, outerEventID: nil)
                    }
                default:
                    continue
                }
            }
        }
    }
}
