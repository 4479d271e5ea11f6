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
