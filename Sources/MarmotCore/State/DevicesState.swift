import Foundation

/// This account's devices as the Devices page shows them (issue 29): each installation is its own
/// MLS member under the account's npub; linking one adds it to the Notes chat.
public struct DevicesState: Sendable, Equatable {
    /// Linked devices first (this one marked), then those waiting to be linked.
    public var list: [DeviceSummary] = []
    /// True once the list was read in this session.
    public var loaded = false
    /// True while a list, link or remove is in flight.
    public var loading = false
    /// What each chat made of the last device removal (removed, not allowed, failed), Notes first.
    public var lastRemoval: [DeviceGroupOutcome] = []

    /// The outcome message of a removal: how many chats it left, was not allowed in, failed in.
    public static func removalSummary(_ groups: [DeviceGroupOutcome]) -> String {
        let removed = groups.filter { $0.status == .removed }.count
        let refused = groups.filter { $0.status == .notAllowed }.count
        let failed = groups.filter { $0.status == .failed }.count
        var parts = ["removed from \(removed) chat\(removed == 1 ? "" : "s")"]
        if refused > 0 { parts.append("not allowed in \(refused) (not an admin)") }
        if failed > 0 { parts.append("failed in \(failed)") }
        return "Device " + parts.joined(separator: ", ")
    }

    /// What a renderer says under the list: linking does not copy history.
    public static let historyNotice =
        "A linked device reads the notes written from the moment it is linked; earlier notes are not transferred."

    public init() {}
}

/// One device row.
public struct DeviceSummary: Sendable, Equatable, Identifiable {
    /// The id `AppAction.linkDevice` and `removeDevice` take (16 hex digits).
    public var id: String
    public var name: String
    /// Unix seconds it joined the Notes chat, when known.
    public var addedAt: Int64?
    /// `addedAt` as the chat list shows times; empty when unknown.
    public var addedDisplay: String
    public var isThisDevice: Bool
    public var isLinked: Bool

    /// The row's mark: "this device", "linked" or "waiting to be linked".
    public var statusLabel: String { isThisDevice ? "this device" : isLinked ? "linked" : "waiting to be linked" }

    public init(id: String, name: String, addedAt: Int64?, addedDisplay: String, isThisDevice: Bool, isLinked: Bool) {
        self.id = id
        self.name = name
        self.addedAt = addedAt
        self.addedDisplay = addedDisplay
        self.isThisDevice = isThisDevice
        self.isLinked = isLinked
    }
}
