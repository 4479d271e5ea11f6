import Foundation
import MarmotCore

/// Why an action's JSON was refused; each case has a stable numeric code (the C ABI's return value).
///
/// Descriptions name the field, never its value: a refused `login` must not echo its nsec.
public enum ContractError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Not UTF-8 JSON, or not an object.
    case invalidJSON
    /// `schemaVersion` present and not the one this library speaks.
    case unsupportedSchemaVersion(Int)
    /// `type` missing or not a known action.
    case unknownType(String)
    /// A required field is missing or has the wrong JSON type.
    case invalidField(String)

    /// The C ABI code (include/marmot.h): 2 invalid JSON, 3 schema version, 4 unknown type, 5 field.
    public var code: Int32 {
        switch self {
        case .invalidJSON: 2
        case .unsupportedSchemaVersion: 3
        case .unknownType: 4
        case .invalidField: 5
        }
    }

    public var description: String {
        switch self {
        case .invalidJSON: "invalid JSON (expected one object)"
        case .unsupportedSchemaVersion(let version):
            "unsupported schemaVersion \(version) (this library speaks \(ContractJSON.schemaVersion))"
        case .unknownType(let type): "unknown action type \"\(type.prefix(40))\""
        case .invalidField(let field): "missing or invalid field \"\(field)\""
        }
    }
}

/// `AppAction` from contract JSON (docs/ffi-contract.md, "AppAction").
extension ContractJSON {
    /// Parses one action: `{"schemaVersion":1,"type":"sendMessage","chatId":"…","content":"…"}`.
    /// `schemaVersion` may be omitted; when present it must match.
    public static func action(fromJSON text: String) throws(ContractError) -> AppAction {
        guard let data = text.data(using: .utf8),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? Object
        else { throw .invalidJSON }
        return try action(from: object)
    }

    /// Parses one action from a decoded JSON object.
    public static func action(from object: Object) throws(ContractError) -> AppAction {
        if let version = object["schemaVersion"] {
            guard let number = version as? Int else { throw .invalidField("schemaVersion") }
            guard number == schemaVersion else { throw .unsupportedSchemaVersion(number) }
        }
        guard let type = object["type"] as? String else { throw .invalidField("type") }
        let fields = Fields(object: object)
        switch type {
        case "createAccount": return .createAccount
        case "login": return .login(nsec: try fields.string("nsec"))
        case "restoreSession": return .restoreSession(nsec: try fields.string("nsec"))
        case "logout": return .logout
        case "exportSecret": return .exportSecret
        case "loadOlder": return .loadOlder(chatID: ChatID(try fields.string("chatId")))
        case "pushScreen": return .pushScreen(try screen(from: object["screen"], field: "screen"))
        case "updateScreenStack":
            guard let list = object["screenStack"] as? [Any] else { throw .invalidField("screenStack") }
            var stack: [Screen] = []
            for item in list { stack.append(try screen(from: item, field: "screenStack")) }
            return .updateScreenStack(stack)
        case "createChat": return .createChat(peerNpub: try fields.string("peerNpub"))
        case "sendMessage":
            return .sendMessage(chatID: ChatID(try fields.string("chatId")), content: try fields.string("content"))
        case "sendAttachment":
            // The file as standard base64 (the C ABI and the web page carry bytes as JSON text).
            guard let text = object["data"] as? String, let data = Data(base64Encoded: text) else {
                throw .invalidField("data")
            }
            return .sendAttachment(
                chatID: ChatID(try fields.string("chatId")), data: data, filename: try fields.string("filename"),
                mimeType: try fields.string("mimeType"), caption: (object["caption"] as? String) ?? "")
        case "downloadAttachment":
            guard let index = object["index"] as? Int, index >= 0 else { throw .invalidField("index") }
            return .downloadAttachment(
                chatID: ChatID(try fields.string("chatId")), messageID: MessageID(try fields.string("messageId")),
                index: index)
        case "addBlossomServer": return .addBlossomServer(url: try fields.string("url"))
        case "removeBlossomServer": return .removeBlossomServer(url: try fields.string("url"))
        case "retryMessage":
            return .retryMessage(
                chatID: ChatID(try fields.string("chatId")), messageID: MessageID(try fields.string("messageId")))
        case "openChat": return .openChat(chatID: ChatID(try fields.string("chatId")))
        case "markChatRead": return .markChatRead(chatID: ChatID(try fields.string("chatId")))
        case "react":
            return .react(
                chatID: ChatID(try fields.string("chatId")), messageID: MessageID(try fields.string("messageId")),
                emoji: try fields.string("emoji"))
        case "unreact":
            return .unreact(
                chatID: ChatID(try fields.string("chatId")), messageID: MessageID(try fields.string("messageId")),
                emoji: object["emoji"] as? String)
        case "reply":
            return .reply(
                chatID: ChatID(try fields.string("chatId")), messageID: MessageID(try fields.string("messageId")),
                content: try fields.string("content"))
        case "editMessage":
            return .editMessage(
                chatID: ChatID(try fields.string("chatId")), messageID: MessageID(try fields.string("messageId")),
                content: try fields.string("content"))
        case "deleteMessage":
            return .deleteMessage(
                chatID: ChatID(try fields.string("chatId")), messageID: MessageID(try fields.string("messageId")))
        case "loadOlderMessages":
            guard let limit = object["limit"] as? Int, limit > 0, limit <= Int(UInt32.max) else {
                throw .invalidField("limit")
            }
            return .loadOlderMessages(
                chatID: ChatID(try fields.string("chatId")),
                beforeMessageID: MessageID(try fields.string("beforeMessageId")), limit: UInt32(limit))
        case "acceptInvite": return .acceptInvite(inviteID: InviteID(try fields.string("inviteId")))
        case "declineInvite": return .declineInvite(inviteID: InviteID(try fields.string("inviteId")))
        case "setProfileName": return .setProfileName(name: try fields.string("name"))
        case "addRelay": return .addRelay(url: try fields.string("url"))
        case "removeRelay": return .removeRelay(url: try fields.string("url"))
        case "createGroup":
            guard let npubs = object["memberNpubs"] as? [String] else { throw .invalidField("memberNpubs") }
            return .createGroup(name: try fields.string("name"), memberNpubs: npubs)
        case "addMembers":
            guard let npubs = object["npubs"] as? [String] else { throw .invalidField("npubs") }
            return .addMembers(chatID: ChatID(try fields.string("chatId")), npubs: npubs)
        case "removeMember": return .removeMember(chatID: ChatID(try fields.string("chatId")), npub: try fields.string("npub"))
        case "renameChat": return .renameChat(chatID: ChatID(try fields.string("chatId")), name: try fields.string("name"))
        case "disbandChat": return .disbandChat(chatID: ChatID(try fields.string("chatId")))
        case "setChatImage":
            // The picture as standard base64, as `sendAttachment` carries a file.
            guard let text = object["data"] as? String, let data = Data(base64Encoded: text) else {
                throw .invalidField("data")
            }
            return .setChatImage(chatID: ChatID(try fields.string("chatId")), data: data, mediaType: object["mediaType"] as? String)
        case "clearChatImage": return .clearChatImage(chatID: ChatID(try fields.string("chatId")))
        case "setRetention":
            guard let seconds = object["seconds"] as? Int, seconds >= 0 else { throw .invalidField("seconds") }
            return .setRetention(chatID: ChatID(try fields.string("chatId")), seconds: UInt64(seconds))
        case "setAdmin":
            guard let isAdmin = object["isAdmin"] as? Bool else { throw .invalidField("isAdmin") }
            return .setAdmin(chatID: ChatID(try fields.string("chatId")), npub: try fields.string("npub"), isAdmin: isAdmin)
        case "leaveChat": return .leaveChat(chatID: ChatID(try fields.string("chatId")))
        case "clearToast": return .clearToast
        case "foregrounded": return .foregrounded
        case "openNotes": return .openNotes
        case "loadDevices": return .loadDevices
        case "linkDevice": return .linkDevice(id: try fields.string("id"))
        case "removeDevice": return .removeDevice(id: try fields.string("id"))
        case "addMyDevices": return .addMyDevices(chatID: ChatID(try fields.string("chatId")))
        case "muteChat":
            // `seconds` (> 0) mutes for a while; without it (or null) the mute is for good.
            let chatID = ChatID(try fields.string("chatId"))
            switch object["seconds"] {
            case nil, is NSNull: return .muteChat(chatID: chatID, duration: .forever)
            case let seconds as Int where seconds > 0: return .muteChat(chatID: chatID, duration: .seconds(UInt64(seconds)))
            default: throw .invalidField("seconds")
            }
        case "unmuteChat": return .unmuteChat(chatID: ChatID(try fields.string("chatId")))
        case "archiveChat": return .archiveChat(chatID: ChatID(try fields.string("chatId")))
        case "unarchiveChat": return .unarchiveChat(chatID: ChatID(try fields.string("chatId")))
        case "blockPerson": return .blockPerson(npub: try fields.string("npub"))
        case "unblockPerson": return .unblockPerson(npub: try fields.string("npub"))
        case "search":
            // `chatId` (optional) limits the search to one chat; `limit` defaults to 50.
            guard object["chatId"] == nil || object["chatId"] is String else { throw .invalidField("chatId") }
            guard object["limit"] == nil || object["limit"] is Int else { throw .invalidField("limit") }
            return .search(
                query: try fields.string("query"), chatID: (object["chatId"] as? String).map(ChatID.init(rawValue:)),
                limit: object["limit"] as? Int ?? 50)
        default: throw .unknownType(type)
        }
    }

    /// A tagged screen object.
    static func screen(from value: Any?, field: String) throws(ContractError) -> Screen {
        guard let object = value as? Object, let type = object["type"] as? String else { throw .invalidField(field) }
        switch type {
        case "login": return .login
        case "chatList": return .chatList
        case "newChat": return .newChat
        case "newGroup": return .newGroup
        case "relays": return .relays
        case "profile": return .profile
        case "devices": return .devices
        case "groupInfo":
            guard let chatID = object["chatId"] as? String else { throw .invalidField(field + ".chatId") }
            return .groupInfo(chatID: ChatID(chatID))
        case "chat":
            guard let chatID = object["chatId"] as? String else { throw .invalidField(field + ".chatId") }
            return .chat(chatID: ChatID(chatID))
        default: throw .invalidField(field + ".type")
        }
    }

    /// The action as contract JSON (for tests, examples and renderers written in Swift).
    public static func actionObject(_ action: AppAction) -> Object {
        var object: Object = ["schemaVersion": schemaVersion]
        switch action {
        case .createAccount: object["type"] = "createAccount"
        case .login(let nsec): object.merge(["type": "login", "nsec": nsec]) { $1 }
        case .restoreSession(let nsec): object.merge(["type": "restoreSession", "nsec": nsec]) { $1 }
        case .logout: object["type"] = "logout"
        case .exportSecret: object["type"] = "exportSecret"
        case .loadOlder(let chatID): object.merge(["type": "loadOlder", "chatId": chatID.rawValue]) { $1 }
        case .pushScreen(let screen): object.merge(["type": "pushScreen", "screen": self.screen(screen)]) { $1 }
        case .updateScreenStack(let stack):
            object.merge(["type": "updateScreenStack", "screenStack": stack.map { Self.screen($0) }]) { $1 }
        case .createChat(let npub): object.merge(["type": "createChat", "peerNpub": npub]) { $1 }
        case .sendMessage(let chatID, let content):
            object.merge(["type": "sendMessage", "chatId": chatID.rawValue, "content": content]) { $1 }
        case .sendAttachment(let chatID, let data, let filename, let mimeType, let caption):
            object.merge([
                "type": "sendAttachment", "chatId": chatID.rawValue, "data": data.base64EncodedString(),
                "filename": filename, "mimeType": mimeType, "caption": caption,
            ]) { $1 }
        case .downloadAttachment(let chatID, let messageID, let index):
            object.merge([
                "type": "downloadAttachment", "chatId": chatID.rawValue, "messageId": messageID.rawValue, "index": index,
            ]) { $1 }
        case .addBlossomServer(let url): object.merge(["type": "addBlossomServer", "url": url]) { $1 }
        case .removeBlossomServer(let url): object.merge(["type": "removeBlossomServer", "url": url]) { $1 }
        case .retryMessage(let chatID, let messageID):
            object.merge(["type": "retryMessage", "chatId": chatID.rawValue, "messageId": messageID.rawValue]) { $1 }
        case .openChat(let chatID): object.merge(["type": "openChat", "chatId": chatID.rawValue]) { $1 }
        case .markChatRead(let chatID): object.merge(["type": "markChatRead", "chatId": chatID.rawValue]) { $1 }
        case .react(let chatID, let messageID, let emoji):
            object.merge(["type": "react", "chatId": chatID.rawValue, "messageId": messageID.rawValue, "emoji": emoji]) { $1 }
        case .unreact(let chatID, let messageID, let emoji):
            object.merge(["type": "unreact", "chatId": chatID.rawValue, "messageId": messageID.rawValue]) { $1 }
            if let emoji { object["emoji"] = emoji }
        case .reply(let chatID, let messageID, let content):
            object.merge([
                "type": "reply", "chatId": chatID.rawValue, "messageId": messageID.rawValue, "content": content,
            ]) { $1 }
        case .editMessage(let chatID, let messageID, let content):
            object.merge([
                "type": "editMessage", "chatId": chatID.rawValue, "messageId": messageID.rawValue, "content": content,
            ]) { $1 }
        case .deleteMessage(let chatID, let messageID):
            object.merge(["type": "deleteMessage", "chatId": chatID.rawValue, "messageId": messageID.rawValue]) { $1 }
        case .loadOlderMessages(let chatID, let before, let limit):
            object.merge([
                "type": "loadOlderMessages", "chatId": chatID.rawValue, "beforeMessageId": before.rawValue,
                "limit": Int(limit),
            ]) { $1 }
        case .acceptInvite(let id): object.merge(["type": "acceptInvite", "inviteId": id.rawValue]) { $1 }
        case .declineInvite(let id): object.merge(["type": "declineInvite", "inviteId": id.rawValue]) { $1 }
        case .setProfileName(let name): object.merge(["type": "setProfileName", "name": name]) { $1 }
        case .addRelay(let url): object.merge(["type": "addRelay", "url": url]) { $1 }
        case .removeRelay(let url): object.merge(["type": "removeRelay", "url": url]) { $1 }
        case .createGroup(let name, let npubs):
            object.merge(["type": "createGroup", "name": name, "memberNpubs": npubs]) { $1 }
        case .addMembers(let chatID, let npubs):
            object.merge(["type": "addMembers", "chatId": chatID.rawValue, "npubs": npubs]) { $1 }
        case .removeMember(let chatID, let npub):
            object.merge(["type": "removeMember", "chatId": chatID.rawValue, "npub": npub]) { $1 }
        case .renameChat(let chatID, let name):
            object.merge(["type": "renameChat", "chatId": chatID.rawValue, "name": name]) { $1 }
        case .disbandChat(let chatID): object.merge(["type": "disbandChat", "chatId": chatID.rawValue]) { $1 }
        case .setChatImage(let chatID, let data, let mediaType):
            var fields: Object = ["type": "setChatImage", "chatId": chatID.rawValue, "data": data.base64EncodedString()]
            if let mediaType { fields["mediaType"] = mediaType }
            object.merge(fields) { $1 }
        case .clearChatImage(let chatID): object.merge(["type": "clearChatImage", "chatId": chatID.rawValue]) { $1 }
        case .setRetention(let chatID, let seconds):
            object.merge(["type": "setRetention", "chatId": chatID.rawValue, "seconds": Int(clamping: seconds)]) { $1 }
        case .setAdmin(let chatID, let npub, let isAdmin):
            object.merge(["type": "setAdmin", "chatId": chatID.rawValue, "npub": npub, "isAdmin": isAdmin]) { $1 }
        case .leaveChat(let chatID): object.merge(["type": "leaveChat", "chatId": chatID.rawValue]) { $1 }
        case .clearToast: object["type"] = "clearToast"
        case .foregrounded: object["type"] = "foregrounded"
        case .openNotes: object["type"] = "openNotes"
        case .loadDevices: object["type"] = "loadDevices"
        case .linkDevice(let id): object.merge(["type": "linkDevice", "id": id]) { $1 }
        case .removeDevice(let id): object.merge(["type": "removeDevice", "id": id]) { $1 }
        case .addMyDevices(let chatID): object.merge(["type": "addMyDevices", "chatId": chatID.rawValue]) { $1 }
        case .muteChat(let chatID, let duration):
            var fields: Object = ["type": "muteChat", "chatId": chatID.rawValue]
            if case .seconds(let seconds) = duration { fields["seconds"] = Int(clamping: seconds) }
            object.merge(fields) { $1 }
        case .unmuteChat(let chatID): object.merge(["type": "unmuteChat", "chatId": chatID.rawValue]) { $1 }
        case .archiveChat(let chatID): object.merge(["type": "archiveChat", "chatId": chatID.rawValue]) { $1 }
        case .unarchiveChat(let chatID): object.merge(["type": "unarchiveChat", "chatId": chatID.rawValue]) { $1 }
        case .blockPerson(let npub): object.merge(["type": "blockPerson", "npub": npub]) { $1 }
        case .unblockPerson(let npub): object.merge(["type": "unblockPerson", "npub": npub]) { $1 }
        case .search(let query, let chatID, let limit):
            object.merge(["type": "search", "query": query, "limit": limit]) { $1 }
            if let chatID { object["chatId"] = chatID.rawValue }
        }
        return object
    }

    private struct Fields {
        let object: Object
        func string(_ name: String) throws(ContractError) -> String {
            guard let value = object[name] as? String else { throw .invalidField(name) }
            return value
        }
    }
}
