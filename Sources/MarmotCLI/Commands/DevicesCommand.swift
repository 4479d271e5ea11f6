import ArgumentParser
import Foundation
import MarmotCore

/// `marmot devices`: this account's installations, each its own member of the Notes chat (issue 29).
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List, link and remove the devices of your account (they share your Notes chat).",
        discussion: """
            Each installation of your account (the same nsec imported on another computer or phone) is \
            its own encrypted member and publishes its own key package. `list` (the default) shows the \
            devices in your Notes chat (this one marked) and those waiting to be linked; `link ID` adds \
            a waiting device to the Notes chat, after which it reads every new note (earlier notes are \
            not transferred); `remove ID` takes a device out of the Notes chat, so it reads nothing \
            written there after. Only key packages signed by your own \
            account are ever offered. With --json, one object per device: `id`, `name`, `status` \
            (this_device, linked, waiting), `addedAt`, `added`.

            Examples:
              marmot devices
              marmot devices link 3f2a9c01d4e5b6a7
              marmot devices remove 3f2a9c01d4e5b6a7 --json
            """,
        subcommands: [DevicesListCommand.self, DevicesLinkCommand.self, DevicesRemoveCommand.self],
        defaultSubcommand: DevicesListCommand.self
    )
}

struct DevicesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List your devices.")
    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await DevicesFlow.run(.loadDevices, operation: .listDevices, Invocation(relay: relay, output: output))
    }
}

struct DevicesLinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link", abstract: "Add a device waiting to be linked to your Notes chat.")
    @Argument(help: ArgumentHelp("A waiting device's id from `marmot devices`.", valueName: "id")) var id: String
    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await DevicesFlow.run(.linkDevice(id: id), operation: .linkDevice, Invocation(relay: relay, output: output))
    }
}

struct DevicesRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a linked device from your Notes chat.")
    @Argument(help: ArgumentHelp("A linked device's id from `marmot devices`.", valueName: "id")) var id: String
    @OptionGroup var relay: RelayOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await DevicesFlow.run(.removeDevice(id: id), operation: .removeDevice, Invocation(relay: relay, output: output))
    }
}

@MainActor
enum DevicesFlow {
    struct Row: Encodable {
        let id: String
        let name: String
        /// this_device, linked or waiting.
        let status: String
        let addedAt: Int64?
        let added: String
    }

    static func run(_ action: AppAction, operation: UserOperation, _ invocation: Invocation) async throws {
        try invocation.requireStoredAccount()
        try await invocation.withSession(publishKeyPackage: true) { session in
            try await session.requireAccount()
            try await session.untilSynced()
            let list = try await session.devices(action, operation: operation)
            let rows = list.map { device in
                Row(
                    id: device.id, name: device.name,
                    status: device.isThisDevice ? "this_device" : device.isLinked ? "linked" : "waiting",
                    addedAt: device.addedAt, added: device.addedDisplay)
            }
            if invocation.json {
                rows.forEach { Output.json($0) }
                return
            }
            switch action {
            case .linkDevice(let id): Output.line("Linked device \(id): it reads notes from now on (earlier notes are not transferred)")
            case .removeDevice(let id):
                Output.line("Removed device \(id): \(DevicesState.removalSummary(session.state.devices.lastRemoval).lowercased())")
                for group in session.state.devices.lastRemoval where group.status != .removed {
                    let reason = group.reason.isEmpty ? "" : " (\(group.reason))"
                    Output.line("  \(group.chatID.rawValue): \(group.status.rawValue.replacingOccurrences(of: "_", with: " "))\(reason)")
                }
            default: break
            }
            for device in list {
                let added = device.addedDisplay.isEmpty ? "" : "  added \(device.addedDisplay)"
                Output.line("\(device.id)  \(device.name)  (\(device.statusLabel))\(added)")
            }
            if !list.contains(where: { !$0.isLinked }) && action == .loadDevices {
                Output.line("No device waiting to be linked. \(DevicesState.historyNotice)")
            }
        }
    }
}

extension CLISession {
    /// Dispatches a device action and waits for its outcome; the devices as the core lists them after.
    func devices(_ action: AppAction, operation: UserOperation, timeout: Duration = .seconds(90)) async throws(CLIError)
        -> [DeviceSummary]
    {
        let mark = outcomeMark
        dispatch(action)
        return try await until("the devices", timeout: timeout) { state throws(CLIError) in
            if let failure = OutcomeExit.failure(in: state, after: mark, of: [operation]) { throw failure }
            guard let outcome = state.lastOutcome, outcome.sequence > mark, outcome.operation == operation else { return nil }
            return state.devices.list
        }
    }
}
