import Foundation
import MarmotCore

/// `AppUpdate` as contract JSON (docs/ffi-contract.md, "AppUpdate").
extension ContractJSON {
    /// One update, tagged by `type`, with `schemaVersion` and `rev`. The side effects `accountCreated`,
    /// `secretAccepted` and `secretExported` carry the nsec and must never be logged.
    public static func updateObject(_ update: AppUpdate) -> Object {
        var object: Object = ["schemaVersion": schemaVersion, "rev": Int(truncatingIfNeeded: update.rev)]
        switch update {
        case .fullState(let state):
            object["type"] = "fullState"
            object["state"] = stateObject(state)
        case .routerChanged(_, let router):
            object["type"] = "routerChanged"
            object["router"] = self.router(router)
        case .authChanged(_, let auth):
            object["type"] = "authChanged"
            object["auth"] = self.auth(auth)
        case .chatListChanged(_, let chatList):
            object["type"] = "chatListChanged"
            object["chatList"] = chatList.map(chatSummary)
        case .currentChatChanged(_, let currentChat):
            object["type"] = "currentChatChanged"
            object["currentChat"] = orNull(currentChat.map(chatView))
        case .toastChanged(_, let toast):
            object["type"] = "toastChanged"
            object["toast"] = orNull(toast)
        case .busyChanged(_, let busy):
            object["type"] = "busyChanged"
            object["busy"] = self.busy(busy)
        case .networkChanged(_, let network):
            object["type"] = "networkChanged"
            object["network"] = self.network(network)
        case .invitesChanged(_, let invites):
            object["type"] = "invitesChanged"
            object["invites"] = invites.map(invite)
        case .profileChanged(_, let profile):
            object["type"] = "profileChanged"
            object["profile"] = self.profile(profile)
        case .devicesChanged(_, let devices):
            object["type"] = "devicesChanged"
            object["devices"] = self.devices(devices)
        case .blockedChanged(_, let blocked):
            object["type"] = "blockedChanged"
            object["blocked"] = self.blocked(blocked)
        case .outcomeChanged(_, let outcome, let toast):
            object["type"] = "outcomeChanged"
            object["outcome"] = orNull(outcome.map(self.outcome))
            object["toast"] = orNull(toast)
        case .secretAccepted(_, let nsec, let npub):
            object["type"] = "secretAccepted"
            object["nsec"] = nsec
            object["npub"] = npub
        case .secretForgotten:
            object["type"] = "secretForgotten"
        case .secretExported(_, let nsec):
            object["type"] = "secretExported"
            object["nsec"] = nsec
        case .accountCreated(_, let nsec, let pubkey, let npub):
            object["type"] = "accountCreated"
            object["nsec"] = nsec
            object["pubkey"] = pubkey
            object["npub"] = npub
        }
        return object
    }

    /// One update as a JSON string.
    public static func updateString(_ update: AppUpdate) -> String { string(updateObject(update)) }

    /// The update with the nsec of a side effect (`accountCreated`, `secretAccepted`, `secretExported`) removed (`"nsec": null`), for renderers that must
    /// not hold the secret (the browser page: the server keeps it in the secret store instead).
    public static func redactedUpdateObject(_ update: AppUpdate) -> Object {
        var object = updateObject(update)
        if object["nsec"] != nil { object["nsec"] = NSNull() }
        return object
    }
}
